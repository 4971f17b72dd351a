# bash completion for allocab (installed by `make install` as
# share/bash-completion/completions/allocab). Subcommands and options come from the allocab being
# completed (`allocab --help`, `allocab COMMAND --help`), so they always match that binary.

# _allocab_options EXE COMMAND: the option names (--long and -x) `EXE COMMAND --help` mentions.
_allocab_options() {
	"$1" "$2" --help 2>/dev/null | grep -oE '(^|[][ ,|])--?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^[][ ,|]*//' | sort -u
}

_allocab_subcommands() {
	"$1" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}

# Backends: the allocab-NAME drivers next to allocab (or in $ALLOCAB_DRIVER_DIR).
_allocab_backends() {
	local exe dir f
	exe=$(command -v "$1" 2>/dev/null) || return
	dir=${ALLOCAB_DRIVER_DIR:-$(dirname "$exe")}
	for f in "$dir"/allocab-*; do
		[ -x "$f" ] || continue
		f=${f##*/allocab-}
		case $f in *[!a-z0-9_]*) continue ;; esac
		printf '%s\n' "$f"
	done
}

_allocab_files() {
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$1"))
	compopt -o filenames 2>/dev/null
}

_allocab() {
	local cur prev exe sub i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	exe=${COMP_WORDS[0]}
	sub=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in -*) ;; *) sub=${COMP_WORDS[i]}; break ;; esac
	done
	if [ -z "$sub" ]; then
		COMPREPLY=($(compgen -W "$(_allocab_subcommands "$exe") help --help --version" -- "$cur"))
		return 0
	fi
	if [ "$sub" = help ]; then
		COMPREPLY=($(compgen -W "$(_allocab_subcommands "$exe")" -- "$cur"))
		return 0
	fi
	case $prev in
	-a | --allocators | --allocator | --candidate | --baseline)
		COMPREPLY=($(compgen -W "$(_allocab_backends "$exe")" -- "$cur"))
		return 0
		;;
	--scale) COMPREPLY=($(compgen -W "small default large" -- "$cur")); return 0 ;;
	--format) COMPREPLY=($(compgen -W "table markdown json csv" -- "$cur")); return 0 ;;
	--on) COMPREPLY=($(compgen -W "each geomean pooled each-machine" -- "$cur")); return 0 ;;
	--phases) COMPREPLY=($(compgen -W "all" -- "$cur")); return 0 ;;
	-o | --output | --against | --calibration | --from | --results-dir | --driver-dir)
		_allocab_files "$cur"
		return 0
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_allocab_options "$exe" "$sub")" -- "$cur"))
	else
		_allocab_files "$cur"
	fi
	return 0
}
complete -F _allocab allocab
