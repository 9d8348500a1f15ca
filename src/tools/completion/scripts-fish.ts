// The fish completion script (see scripts.ts).
import type { CommandDoc } from './model.js';
import {
  GENERATED,
  contexts,
  fishq,
  positionalKind,
  short,
  takesValue,
  valueKind,
  type Context,
} from './scripts-common.js';

function fishSwitch(ctxs: readonly Context[], items: (c: Context) => string[]): string {
  const lines: string[] = [];
  for (const c of ctxs) {
    const v = items(c);
    if (!v.length) continue;
    lines.push(`        case ${fishq(c.key)}`, `            printf '%s\\n' ${v.map(fishq).join(' ')}`);
  }
  return lines.join('\n');
}

export function fishScript(root: CommandDoc): string {
  const ctxs = contexts(root);
  const lines: string[] = [];
  const cond = (key: string): string => `__tkafka_in ${fishq(key)}`;
  for (const c of ctxs) {
    for (const s of c.doc.subcommands)
      lines.push(`complete -c tkafka -n ${fishq(cond(c.key))} -a ${fishq(s.name)} -d ${fishq(short(s.summary))}`);
    for (const o of c.doc.options) {
      const parts = [`complete -c tkafka -n ${fishq(cond(c.key))}`];
      for (const f of o.flags) parts.push(f.startsWith('--') ? `-l ${fishq(f.slice(2))}` : `-s ${fishq(f.slice(1))}`);
      if (takesValue(o)) {
        const k = valueKind(o);
        if (k === '@file') parts.push('-r -F');
        else if (k === '@dir') parts.push(`-x -a '(__fish_complete_directories)'`);
        else if (k === '@topic') parts.push(`-x -a '(__tkafka_live topics)'`);
        else if (k === '@group') parts.push(`-x -a '(__tkafka_live groups)'`);
        else if (k === '@none' || k === '@hostport') parts.push('-x');
        else parts.push(`-x -a ${fishq(k)}`);
      }
      parts.push(`-d ${fishq(short(o.description))}`);
      lines.push(parts.join(' '));
    }
    const pk = positionalKind(c.doc);
    if (pk === '@file') lines.push(`complete -c tkafka -n ${fishq(cond(c.key))} -F`);
    else if (pk !== '@none' && !pk.startsWith('@'))
      lines.push(`complete -c tkafka -n ${fishq(cond(c.key))} -a ${fishq(pk)}`);
  }
  return `# fish completion for tkafka. ${GENERATED}
# Install: copy to ~/.config/fish/completions/tkafka.fish, or run:  tkafka completion fish | source

function __tkafka_subs --argument-names ctx
    switch "$ctx"
${fishSwitch(ctxs, (c) => c.doc.subcommands.map((s) => s.name))}
    end
end

function __tkafka_argflags --argument-names ctx
    switch "$ctx"
${fishSwitch(ctxs, (c) => c.doc.options.filter(takesValue).flatMap((o) => [...o.flags]))}
    end
end

function __tkafka_multiflags --argument-names ctx
    switch "$ctx"
${fishSwitch(ctxs, (c) => c.doc.options.filter((o) => takesValue(o) && o.multi).flatMap((o) => [...o.flags]))}
    end
end

# The command being typed ("", "topics", "metadata-quorum describe"), skipping flag values; cached per line.
function __tkafka_ctx
    set -l words (commandline -opc)
    set -l key (string join ' ' -- $words)
    if set -q __tkafka_ctx_key; and test "$__tkafka_ctx_key" = "$key"
        echo $__tkafka_ctx_val
        return
    end
    set -l ctx ''
    set -l expect 0
    set -l multi 0
    for w in $words[2..-1]
        if test $expect = 1
            set expect 0
            continue
        end
        if test $multi = 1; and not string match -q -- '-*' $w
            continue
        end
        set multi 0
        if string match -q -- '-*' $w
            string match -q -- '*=*' $w; and continue
            contains -- $w (__tkafka_argflags "$ctx"); and set expect 1
            if contains -- $w (__tkafka_multiflags "$ctx")
                set multi 1
                set expect 0
            end
            continue
        end
        if contains -- $w (__tkafka_subs "$ctx")
            set ctx (string trim -- "$ctx $w")
        end
    end
    set -g __tkafka_ctx_key $key
    set -g __tkafka_ctx_val $ctx
    echo $ctx
end

function __tkafka_in --argument-names want
    set -l c (__tkafka_ctx)
    test "$c" = "$want"
end

# Live names (topics or groups) from the cluster named on the command line, else the environment.
function __tkafka_live --argument-names kind
    set -l words (commandline -opc)
    set -l bs ''
    set -l n (count $words)
    for i in (seq $n)
        switch $words[$i]
            case --bootstrap-server -b
                if test $i -lt $n
                    set bs $words[(math $i + 1)]
                end
            case '--bootstrap-server=*'
                set bs (string replace -- '--bootstrap-server=' '' $words[$i])
            case 'bootstrap.servers=*'
                set bs (string replace -- 'bootstrap.servers=' '' $words[$i])
        end
    end
    set -l cmd $words[1] __complete $kind
    test -n "$bs"; and set cmd $cmd --bootstrap-server $bs
    if command -q timeout
        timeout 3 $cmd 2>/dev/null
    else
        $cmd 2>/dev/null
    end
end

complete -c tkafka -f
${lines.join('\n')}
`;
}
