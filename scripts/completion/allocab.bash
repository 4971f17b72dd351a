# bash completion for allocab (installed by `make install` as
# share/bash-completion/completions/allocab). Everything offered comes from the allocab being
# completed: `allocab help --complete WORD...` reads its commands, their option tables and the
# values of each option (the export formats, the regimes, the drivers and their workloads; see
# src/common/opt.h), so completion always matches that binary and lists nothing of its own.

_allocab() {
	local IFS=$'\n' cur kind
	local -a reply
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	[ "$cur" = = ] && cur=""
	reply=($("${COMP_WORDS[0]}" help --complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)) || return 0
	kind=${reply[0]-}
	case $kind in
	files | dirs)
		if [ "$kind" = files ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi
		compopt -o filenames 2>/dev/null
		;;
	words) COMPREPLY=("${reply[@]:1}") ;;
	esac
	return 0
}
complete -F _allocab allocab
