package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// The bash and zsh scripts ask rebasegen itself for candidates (urfave/cli's hidden
// --generate-bash-completion flag, app.EnableBashCompletion); they are urfave/cli v2's
// autocomplete/bash_autocomplete and zsh_autocomplete (MIT) with the program name filled in, and
// REBASEGEN_COMPLETION=1 (completionEnv) set for the call.
const bashCompletion = `# bash completion for rebasegen: source <(rebasegen completion bash)
_rebasegen_complete() {
  local cur words
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  if [[ "$cur" == "-"* ]]; then
    opts=$(REBASEGEN_COMPLETION=1 "${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$(REBASEGEN_COMPLETION=1 "${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
}
complete -o bashdefault -o default -F _rebasegen_complete rebasegen
`

const zshCompletion = `#compdef rebasegen
# zsh completion for rebasegen: source <(rebasegen completion zsh)
_rebasegen_complete() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(REBASEGEN_COMPLETION=1 ${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion)}")
  else
    opts=("${(@f)$(REBASEGEN_COMPLETION=1 ${words[@]:0:#words[@]-1} --generate-bash-completion)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _rebasegen_complete rebasegen
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: helpText("source <(rebasegen completion bash)\nrebasegen completion fish > ~/.config/fish/completions/rebasegen.fish",
			"0 script written", "1 no or an unknown shell"),
		Action: func(c *cli.Context) error {
			return writeCompletion(c.App.Writer, c.App, c.Args().First())
		},
	}
}

func writeCompletion(w io.Writer, app *cli.App, shell string) error {
	switch shell {
	case "bash":
		_, err := io.WriteString(w, bashCompletion)
		return err
	case "zsh":
		_, err := io.WriteString(w, zshCompletion)
		return err
	case "fish":
		s, err := app.ToFishCompletion()
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, s)
		return err
	}
	return fmt.Errorf("completion: want bash, zsh or fish, got %q", shell)
}
