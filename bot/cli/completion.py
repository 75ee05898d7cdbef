"""`denpex completion bash|zsh`: a shell completion script, made from the parser itself.

    eval "$(denpex completion bash)"      # in ~/.bashrc
    eval "$(denpex completion zsh)"       # in ~/.zshrc (through bashcompinit)

Commands, sub-commands and options complete; file arguments fall back to file names.
"""

from __future__ import annotations

import argparse
import shlex


def _tree(parser: argparse.ArgumentParser, path: str = "") -> dict[str, list[str]]:
    """`"diagnose"` -> its options, `""` -> the commands, `"rules"` -> lint/test and options."""
    words: list[str] = []
    out: dict[str, list[str]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                words.append(name)
                out.update(_tree(sub, f"{path} {name}".strip()))
        else:
            words += [o for o in action.option_strings if o.startswith("--")]
            if action.choices and action.option_strings:
                out[f"{path}|{action.option_strings[-1]}".strip()] = [str(c) for c in action.choices]
    out[path] = words
    return out


def bash_script(parser: argparse.ArgumentParser) -> str:
    tree = _tree(parser)
    cases = "\n".join(f"        {shlex.quote(key)}) words={shlex.quote(' '.join(sorted(set(vals))))} ;;" for key, vals in sorted(tree.items()))
    return f"""# denpex completion for bash (and zsh through bashcompinit)
_denpex() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" path="" words="" i w
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${{COMP_WORDS[i]}}"
        case "$w" in -*) ;; *) case " $(_denpex_words "$path") " in *" $w "*) path="${{path:+$path }}$w" ;; esac ;; esac
    done
    words="$(_denpex_words "$path|$prev")"
    [ -z "$words" ] && words="$(_denpex_words "$path")"
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    [ ${{#COMPREPLY[@]}} -eq 0 ] && [ "${{cur:0:1}}" != "-" ] && COMPREPLY=($(compgen -f -- "$cur"))
    return 0
}}
_denpex_words() {{
    local words=""
    case "$1" in
{cases}
    esac
    printf '%s' "$words"
}}
complete -o filenames -F _denpex denpex
"""


def run(args: argparse.Namespace) -> int:
    from bot.cli import build_parser

    script = bash_script(build_parser())
    if args.shell == "zsh":
        script = "autoload -U +X bashcompinit && bashcompinit\n" + script
    print(script, end="")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "completion", help="print a shell completion script (bash or zsh)",
        description='Print a completion script: eval "$(denpex completion bash)" in ~/.bashrc, '
        'or eval "$(denpex completion zsh)" in ~/.zshrc.',
    )
    p.add_argument("shell", choices=("bash", "zsh"), help="the shell to complete in")
    p.set_defaults(handler=run)
