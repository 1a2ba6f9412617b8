#!/bin/sh
# completion.sh OPTRACE: print the bash completion of optrace, made from the
# --help of each command (optrace, optrace diff, optrace show), which the
# option tables of gen/main.c make: the one source of what each command
# takes. An option's argument is completed by its name in the help: DIR a
# folder, FILE/PATH a file, LIST the output formats, WHAT --fail-on's words.
set -eu
bin=$1

# "name:ARG" for each option of `optrace [CMD] --help` (ARG "-" for none)
options() {
	# shellcheck disable=SC2086
	"$bin" $1 --help | sed -En 's/^ +(-[a-zA-Z], )?(--[a-z][a-z-]*)( [A-Z_]+)? .*/\1\2\3/p' |
		while read -r a b c; do
			case $a in
			-?,) short=${a%,}; long=$b; arg=${c:--} ;;
			*) short=""; long=$a; arg=${b:--} ;;
			esac
			echo "$long:$arg"
			[ -z "$short" ] || echo "$short:$arg"
		done
}

words() { # the options of a command, space-separated
	options "$1" | cut -d: -f1 | tr '\n' ' ' | sed 's/ $//'
}

cases() { # case arms: an option's argument, completed by its kind
	options "$1" | while IFS=: read -r opt arg; do
		case $arg in
		DIR) echo "		$opt) COMPREPLY=(\$(compgen -d -- \"\$cur\")); return ;;" ;;
		FILE | PATH) echo "		$opt) COMPREPLY=(\$(compgen -f -- \"\$cur\")); return ;;" ;;
		LIST) echo "		$opt) COMPREPLY=(\$(compgen -W 'md json html md,json md,json,html' -- \"\$cur\")); return ;;" ;;
		WHAT) echo "		$opt) COMPREPLY=(\$(compgen -W 'breaking any' -- \"\$cur\")); return ;;" ;;
		-) ;;
		*) echo "		$opt) return ;;" ;;
		esac
	done
}

cat <<EOF
# bash completion for optrace, made by ci/completion.sh from the --help of
# each command: edit gen/main.c, not this file.

_optrace() {
	local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmd=""
	COMPREPLY=()
	if [ "\$COMP_CWORD" -gt 1 ]; then
		case \${COMP_WORDS[1]} in diff | show) cmd=\${COMP_WORDS[1]} ;; esac
	fi
	case \$cmd in
	diff)
		case \$prev in
$(cases diff)
		esac
		words="$(words diff)" ;;
	show)
		case \$prev in
$(cases show)
		esac
		words="$(words show)" ;;
	*)
		case \$prev in
$(cases "")
		esac
		words="$(words "")" ;;
	esac
	if [[ \$cur == -* ]]; then
		COMPREPLY=(\$(compgen -W "\$words" -- "\$cur"))
	elif [ "\$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=(\$(compgen -W "diff show" -- "\$cur") \$(compgen -f -- "\$cur"))
	else
		COMPREPLY=(\$(compgen -f -- "\$cur"))
	fi
}
complete -o filenames -F _optrace optrace
EOF
