// The bash completion script (see scripts.ts).
import type { CommandDoc } from './model.js';
import { GENERATED, contexts, positionalKind, sq, takesValue, valueKind, type Context } from './scripts-common.js';

/** A `case` statement over contexts with one value each (skipping empty values). */
function caseOf(ctxs: readonly Context[], value: (c: Context) => string, indent = '    '): string {
  const lines: string[] = [];
  for (const c of ctxs) {
    const v = value(c);
    if (v === '') continue;
    lines.push(`${indent}${sq(c.key)}) REPLY=${sq(v)} ;;`);
  }
  return lines.join('\n');
}

export function bashScript(root: CommandDoc): string {
  const ctxs = contexts(root);
  const flags = (c: Context): string => c.doc.options.flatMap((o) => o.flags).join(' ');
  const argflags = (c: Context): string => {
    const f = c.doc.options.filter(takesValue).flatMap((o) => o.flags);
    return f.length ? ` ${f.join(' ')} ` : '';
  };
  const multiflags = (c: Context): string => {
    const f = c.doc.options.filter((o) => takesValue(o) && o.multi).flatMap((o) => o.flags);
    return f.length ? ` ${f.join(' ')} ` : '';
  };
  const values: string[] = [];
  for (const c of ctxs) {
    for (const o of c.doc.options.filter(takesValue)) {
      const k = valueKind(o);
      if (k === '@none') continue;
      for (const f of o.flags) values.push(`    ${sq(`${c.key}|${f}`)}) REPLY=${sq(k)} ;;`);
    }
  }
  return `# bash completion for tkafka                                -*- shell-script -*-
# ${GENERATED}
# Install: copy to /usr/share/bash-completion/completions/tkafka (or ~/.local/share/bash-completion/completions/tkafka),
# or add to ~/.bashrc:  eval "$(tkafka completion bash)"

__tkafka_subs() {
  case "$1" in
${caseOf(ctxs, (c) => c.doc.subcommands.map((s) => s.name).join(' '))}
    *) REPLY='' ;;
  esac
}

__tkafka_flags() {
  case "$1" in
${caseOf(ctxs, flags)}
    *) REPLY='' ;;
  esac
}

# Flags that take a value (surrounded by spaces, for matching).
__tkafka_argflags() {
  case "$1" in
${caseOf(ctxs, argflags)}
    *) REPLY='' ;;
  esac
}

# Flags that take one or more values (argparse nargs='+').
__tkafka_multiflags() {
  case "$1" in
${caseOf(ctxs, multiflags)}
    *) REPLY='' ;;
  esac
}

# What the value of flag $2 in context $1 is: @file @dir @topic @group @hostport, or a word list.
__tkafka_value() {
  case "$1|$2" in
${values.join('\n')}
    *) REPLY='@none' ;;
  esac
}

# What a plain argument in context $1 is.
__tkafka_positional() {
  case "$1" in
${caseOf(ctxs, (c) => {
  const k = positionalKind(c.doc);
  return k === '@none' ? '' : k;
})}
    *) REPLY='@none' ;;
  esac
}

# The word starting at index $1, with the ':' pieces bash splits off (COMP_WORDBREAKS) glued back.
__tkafka_word_at() {
  local i=$1 v=\${COMP_WORDS[$1]}
  [[ $v == '=' ]] && { ((i++)); v=\${COMP_WORDS[i]}; }
  while [[ \${COMP_WORDS[i+1]} == ':' ]]; do
    v+=":\${COMP_WORDS[i+2]}"
    ((i += 2))
  done
  REPLY=$v
}

# Live names (topics or groups) from the cluster named on the command line, else the environment.
__tkafka_live() {
  local bs='' i w n=\${#COMP_WORDS[@]}
  for ((i = 1; i < n; i++)); do
    w=\${COMP_WORDS[i]}
    case $w in
      --bootstrap-server|-b) __tkafka_word_at $((i + 1)); bs=$REPLY ;;
      --bootstrap-server=*) bs=\${w#*=} ;;
      bootstrap.servers) [[ \${COMP_WORDS[i+1]} == '=' ]] && { __tkafka_word_at $((i + 2)); bs=$REPLY; } ;;
      bootstrap.servers=*) bs=\${w#*=} ;;
    esac
  done
  local -a cmd=("\${COMP_WORDS[0]}" __complete "$1")
  [[ -n $bs ]] && cmd+=(--bootstrap-server "$bs")
  if command -v timeout >/dev/null 2>&1; then
    timeout 3 "\${cmd[@]}" 2>/dev/null
  else
    "\${cmd[@]}" 2>/dev/null
  fi
}

__tkafka_complete_kind() {
  local kind=$1 cur=$2 IFS=$'\\n'
  case $kind in
    @none|@hostport) COMPREPLY=() ;;
    @file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
    @dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
    @topic) COMPREPLY=($(compgen -W "$(__tkafka_live topics)" -- "$cur")) ;;
    @group) COMPREPLY=($(compgen -W "$(__tkafka_live groups)" -- "$cur")) ;;
    *) IFS=$' \\t\\n'; COMPREPLY=($(compgen -W "$kind" -- "$cur")) ;;
  esac
}

_tkafka() {
  local ctx='' expect='' multi=0 i w REPLY
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if [[ -n $expect ]]; then
      [[ $w == '=' ]] && continue
      expect=''
      while [[ \${COMP_WORDS[i+1]} == ':' ]] && ((i + 2 < COMP_CWORD)); do ((i += 2)); done
      continue
    fi
    if ((multi)) && [[ $w != -* ]]; then continue; fi
    multi=0
    if [[ $w == -* ]]; then
      [[ $w == *=* ]] && continue
      __tkafka_argflags "$ctx"; [[ $REPLY == *" $w "* ]] && expect=$w
      __tkafka_multiflags "$ctx"; [[ $REPLY == *" $w "* ]] && { multi=1; expect=''; }
      continue
    fi
    __tkafka_subs "$ctx"
    [[ " $REPLY " == *" $w "* ]] && ctx=\${ctx:+$ctx }$w
  done

  # The value of a flag: "--flag <TAB>", "--flag=<TAB>", "--flag=va<TAB>".
  local flag='' prefix=''
  if [[ $cur == '=' ]]; then
    flag=$prev; cur=''; prefix='='
  elif [[ $prev == '=' ]]; then
    flag=\${COMP_WORDS[COMP_CWORD-2]}
  elif [[ $prev == ':' || $cur == ':' ]]; then
    COMPREPLY=(); return
  elif [[ -n $expect ]]; then
    flag=$expect
  fi
  if [[ -n $flag ]]; then
    __tkafka_argflags "$ctx"
    if [[ $REPLY == *" $flag "* ]]; then
      __tkafka_value "$ctx" "$flag"
      __tkafka_complete_kind "$REPLY" "$cur"
      [[ -n $prefix ]] && COMPREPLY=("\${COMPREPLY[@]/#/=}")
      return
    fi
  fi
  if ((multi)) && [[ $cur != -* ]]; then COMPREPLY=(); return; fi

  if [[ $cur == -* ]]; then
    __tkafka_flags "$ctx"
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    return
  fi
  __tkafka_subs "$ctx"
  if [[ -n $REPLY ]]; then
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    return
  fi
  __tkafka_positional "$ctx"
  __tkafka_complete_kind "$REPLY" "$cur"
}

complete -F _tkafka tkafka
`;
}
