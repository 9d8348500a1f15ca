// The zsh completion script (see scripts.ts).
import type { CommandDoc } from './model.js';
import {
  GENERATED,
  contexts,
  positionalKind,
  short,
  sq,
  takesValue,
  valueKind,
  type Context,
} from './scripts-common.js';

function zcaseList(ctxs: readonly Context[], items: (c: Context) => string[], indent = '    '): string {
  const lines: string[] = [];
  for (const c of ctxs) {
    const v = items(c);
    if (!v.length) continue;
    lines.push(`${indent}(${sq(c.key)}) reply=(\n${v.map((x) => `${indent}  ${sq(x)}`).join('\n')}\n${indent}) ;;`);
  }
  return lines.join('\n');
}

const zdesc = (name: string, d: string): string => `${name.replace(/:/g, '\\:')}:${short(d)}`;

export function zshScript(root: CommandDoc): string {
  const ctxs = contexts(root);
  const values: string[] = [];
  for (const c of ctxs) {
    for (const o of c.doc.options.filter(takesValue)) {
      const k = valueKind(o);
      if (k === '@none') continue;
      for (const f of o.flags) values.push(`    (${sq(`${c.key}|${f}`)}) REPLY=${sq(k)} ;;`);
    }
  }
  return `#compdef tkafka
# zsh completion for tkafka. ${GENERATED}
# Install: copy to a directory of $fpath as _tkafka (then compinit), or add to ~/.zshrc after compinit:
#   source <(tkafka completion zsh)

__tkafka_subs() {
  case $1 in
${zcaseList(ctxs, (c) => c.doc.subcommands.map((s) => zdesc(s.name, s.summary)))}
    (*) reply=() ;;
  esac
}

__tkafka_flags() {
  case $1 in
${zcaseList(ctxs, (c) => c.doc.options.flatMap((o) => o.flags.map((f) => zdesc(f, o.description))))}
    (*) reply=() ;;
  esac
}

__tkafka_argflags() {
  case $1 in
${zcaseList(ctxs, (c) => c.doc.options.filter(takesValue).flatMap((o) => [...o.flags]))}
    (*) reply=() ;;
  esac
}

__tkafka_multiflags() {
  case $1 in
${zcaseList(ctxs, (c) => c.doc.options.filter((o) => takesValue(o) && o.multi).flatMap((o) => [...o.flags]))}
    (*) reply=() ;;
  esac
}

__tkafka_value() {
  case "$1|$2" in
${values.join('\n')}
    (*) REPLY='@none' ;;
  esac
}

__tkafka_positional() {
  case $1 in
${ctxs
  .filter((c) => positionalKind(c.doc) !== '@none')
  .map((c) => `    (${sq(c.key)}) REPLY=${sq(positionalKind(c.doc))} ;;`)
  .join('\n')}
    (*) REPLY='@none' ;;
  esac
}

__tkafka_live() {
  local bs='' i
  for (( i = 2; i <= $#words; i++ )); do
    case \${words[i]} in
      (--bootstrap-server|-b) bs=\${words[i+1]} ;;
      (--bootstrap-server=*) bs=\${words[i]#*=} ;;
      (bootstrap.servers=*) bs=\${words[i]#bootstrap.servers=} ;;
    esac
  done
  local -a cmd
  cmd=("\${words[1]}" __complete "$1")
  [[ -n $bs ]] && cmd+=(--bootstrap-server "$bs")
  if (( $+commands[timeout] )); then
    reply=("\${(@f)$(timeout 3 "\${cmd[@]}" 2>/dev/null)}")
  else
    reply=("\${(@f)$("\${cmd[@]}" 2>/dev/null)}")
  fi
  reply=(\${reply:#})
}

__tkafka_complete_kind() {
  case $1 in
    (@none|@hostport) return 1 ;;
    (@file) _files ;;
    (@dir) _files -/ ;;
    (@topic) __tkafka_live topics; compadd -a reply ;;
    (@group) __tkafka_live groups; compadd -a reply ;;
    (*) compadd -- \${=1} ;;
  esac
}

_tkafka() {
  local ctx='' expect='' multi=0 i w REPLY
  local -a reply
  for (( i = 2; i < CURRENT; i++ )); do
    w=\${words[i]}
    if [[ -n $expect ]]; then expect=''; continue; fi
    if (( multi )) && [[ $w != -* ]]; then continue; fi
    multi=0
    if [[ $w == -* ]]; then
      [[ $w == *=* ]] && continue
      __tkafka_argflags "$ctx"; (( \${reply[(Ie)$w]} )) && expect=$w
      __tkafka_multiflags "$ctx"; (( \${reply[(Ie)$w]} )) && { multi=1; expect=''; }
      continue
    fi
    __tkafka_subs "$ctx"
    local -a names
    names=(\${reply%%:*})
    (( \${names[(Ie)$w]} )) && ctx=\${ctx:+$ctx }$w
  done

  local cur=\${words[CURRENT]} flag=''
  if [[ -n $expect ]]; then
    flag=$expect
  elif [[ $cur == --*=* ]]; then
    flag=\${cur%%=*}
    compset -P '*='
  fi
  if [[ -n $flag ]]; then
    __tkafka_argflags "$ctx"
    if (( \${reply[(Ie)$flag]} )); then
      __tkafka_value "$ctx" "$flag"
      __tkafka_complete_kind "$REPLY"
      return
    fi
  fi
  (( multi )) && [[ $cur != -* ]] && return 1

  if [[ $cur == -* ]]; then
    __tkafka_flags "$ctx"
    _describe -t options 'option' reply
    return
  fi
  __tkafka_subs "$ctx"
  if (( $#reply )); then
    _describe -t commands 'command' reply
    return
  fi
  __tkafka_positional "$ctx"
  __tkafka_complete_kind "$REPLY"
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _tkafka "$@"
else
  compdef _tkafka tkafka
fi
`;
}
