# zsh_complete.zsh DIR OUT LINE...: types each LINE and a Tab into one
# interactive zsh (no startup files) whose $fpath starts with DIR, after
# compinit. OUT gets, for each LINE, a line "> LINE", the matches that
# completion offered (one a line, as zsh quotes them), and a line "DONE".
# Exit status 3 when the zpty module is missing, 1 when a line got no answer
# within 10 s.
zmodload zsh/zpty 2> /dev/null || exit 3
dir=$1 out=$2
shift 2
: > $out
zpty z zsh -f -i || exit 3
zpty -w z "PS1='' PS2=''; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
# Every match added without -O, -A or -D (which only collect) is also written
# to OUT; the Tab key completes, then marks the end and clears the line.
zpty -w z "compadd() { local -a o h; zparseopts -E -a o O: A: D:; if (( \$#o )); then builtin compadd \"\$@\"; return; fi; builtin compadd -O h \"\$@\"; (( \$#h )) && print -rl -- \$h >> ${(q)out}; builtin compadd \"\$@\" }"
zpty -w z "tab-and-mark() { zle complete-word; print DONE >> ${(q)out}; zle kill-whole-line }; zle -N tab-and-mark; bindkey '^I' tab-and-mark; print RE''ADY"
zpty -r z x '*READY*' || exit 3
n=0
for line; do
	print -r -- "> $line" >> $out
	zpty -w -n z "$line"$'\t'
	(( n++ ))
	for i in {1..200}; do
		(( $(grep -cx DONE $out) >= n )) && break
		sleep 0.05
	done
done
zpty -d z
(( $(grep -cx DONE $out) == n ))
