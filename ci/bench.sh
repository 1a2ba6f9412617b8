#!/usr/bin/env bash
# bench.sh SOURCE [OPTRACE]: optrace's performance, measured against ripgrep
# in the same run (this machine is noisy: compare the ratios, not seconds).
#
#   1. ripgrep baseline: one warm pass over aten/ torch/ tools/ of the v2.6.0
#      tree for the constructs optrace indexes (best of 5);
#   2. trace only: optrace --all --format json at v2.6.0 (best of 5), and the
#      ratio to ripgrep (target: at most 3x);
#   3. everything: optrace --all (pages, diagrams, index, JSON) with the -v
#      phase split (target: under 10 s), peak RSS (target: under 512 MB);
#   4. the default ops.list, full output (target: under 3 s);
#   5. -j1 vs -j2 (-j2 must be faster) with identical output bytes;
#   6. a second run over the same output rewrites no file;
#   7. optrace which: a profiler's kernel name and a diff at v2.6.0 --all,
#      source to answer (best of 5, target: under 1 s), and the -v phase
#      split of a trace-only run with --check (the 'tests' phase reads
#      PyTorch's test databases).
# Prints one table. Exit status 1 when a target is missed.
set -euo pipefail

src=${1:?usage: ci/bench.sh SOURCE [OPTRACE]}
optrace=$(realpath "${2:-build/optrace}")
version=2.6.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C

command -v rg >/dev/null || { echo "bench: ripgrep (rg) is not installed (make deps)" >&2; exit 2; }
[ -x "$optrace" ] || { echo "bench: $optrace is not built" >&2; exit 2; }

# The v2.6.0 tree as files for ripgrep (optrace itself reads the tag through
# libgit2); git archive leaves the checkout untouched.
tree="$work/tree"
mkdir -p "$tree"
git -C "$src" archive "v$version" aten torch tools | tar -x -C "$tree"

calc() { awk "BEGIN { print ($1) }"; }          # calc EXPR -> number
secs() { # secs CMD... -> wall seconds of one run (output discarded)
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	calc "$t1 - $t0"
}

best_of() { # best_of N CMD...
	local n=$1 best="" t
	shift
	for _ in $(seq "$n"); do
		t=$(secs "$@")
		if [ -z "$best" ] || [ "$(calc "$t < $best")" = 1 ]; then best=$t; fi
	done
	printf '%.3f' "$best"
}

rg_pass() {
	(cd "$tree" && rg -n -e 'TORCH_IMPL_FUNC' -e 'REGISTER_[A-Z0-9_]*DISPATCH' -e '__global__' \
		-e '^- func:' -e '^- name:' aten torch tools)
}

echo "bench: warming the page cache" >&2
rg_pass >/dev/null
"$optrace" -q -s "$src" -t "$version" --all --format json -o "$work/warm" >/dev/null 2>&1 || true

echo "bench: ripgrep baseline and trace-only runs" >&2
rg_s=$(best_of 5 rg_pass)
trace_s=$(best_of 5 "$optrace" -q -s "$src" -t "$version" --all --format json -o "$work/json")
ratio=$(printf '%.2f' "$(calc "$trace_s / $rg_s")")

echo "bench: everything (--all, every format)" >&2
/usr/bin/time -v -o "$work/time.txt" "$optrace" -v -s "$src" -t "$version" --all \
	--format md,json,html -o "$work/all" 2>"$work/phases.txt" || true
all_s=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.3f", s}' "$work/time.txt")
rss_mb=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time.txt")
nops=$(grep -c '^      "input": ' "$work/all/trace.json" || true) # one per op
ops_per_s=$(printf '%.0f' "$(calc "$nops / $all_s")")

echo "bench: second run over the same output" >&2
"$optrace" -s "$src" -t "$version" --all --format md,json,html -o "$work/all" 2>"$work/second.txt" || true
rewritten=$(sed -n 's/.*: \([0-9]*\) files written.*/\1/p' "$work/second.txt" | tail -1)

echo "bench: default ops.list" >&2
default_s=$(best_of 3 "$optrace" -q -s "$src" -t "$version" --format md,json,html -o "$work/default" ops.list)

echo "bench: -j1 vs -j2 (trace + pages)" >&2
j1_s=$(best_of 2 "$optrace" -q -j1 -s "$src" -t "$version" --all -o "$work/j1")
j2_s=$(best_of 2 "$optrace" -q -j2 -s "$src" -t "$version" --all -o "$work/j2")
if diff -r "$work/j1" "$work/j2" >/dev/null; then same="identical"; else same="DIFFERENT"; fi

echo "bench: optrace which" >&2
kernel='void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)'
which_s=$(best_of 5 "$optrace" which -q -s "$src" -t "$version" --all "$kernel")
printf '%s\n' 'diff --git a/aten/src/ATen/native/cuda/SoftMax.cu b/aten/src/ATen/native/cuda/SoftMax.cu' \
	'--- a/aten/src/ATen/native/cuda/SoftMax.cu' '+++ b/aten/src/ATen/native/cuda/SoftMax.cu' \
	'@@ -825,1 +825,1 @@' '-a' '+b' > "$work/change.diff"
which_diff_s=$(best_of 5 "$optrace" which -q -s "$src" -t "$version" --all --diff "$work/change.diff")
"$optrace" -v -s "$src" -t "$version" --all --check 2>"$work/check.txt" >/dev/null || true

ok() { if [ "$(calc "$1")" = 1 ]; then echo "yes"; else echo "NO"; fi; }
status=0
t1=$(ok "$ratio <= 3");       [ "$t1" = yes ] || status=1
t2=$(ok "$all_s < 10");       [ "$t2" = yes ] || status=1
t3=$(ok "$default_s < 3");    [ "$t3" = yes ] || status=1
t4=$(ok "$rss_mb < 512");     [ "$t4" = yes ] || status=1
t5=$(ok "$j2_s < $j1_s");     [ "$t5" = yes ] || status=1
t6=$(ok "$which_s < 1");      [ "$t6" = yes ] || status=1
t7=$(ok "$which_diff_s < 1"); [ "$t7" = yes ] || status=1
[ "$same" = identical ] || status=1
[ "${rewritten:-1}" = 0 ] || status=1

echo
echo "optrace benchmark, PyTorch $version, $(nproc) cores, $(date -u +%Y-%m-%d)"
echo
echo "| measure | value | target | met |"
echo "|---|---|---|---|"
echo "| ripgrep pass (best of 5) | ${rg_s} s | | |"
echo "| trace only, --all --format json (best of 5) | ${trace_s} s | | |"
echo "| ratio to ripgrep | ${ratio}x | <= 3x | $t1 |"
echo "| everything, --all md+json+html | ${all_s} s | < 10 s | $t2 |"
echo "| ops/s (everything) | ${ops_per_s} ($nops ops) | | |"
echo "| peak RSS (everything) | ${rss_mb} MB | < 512 MB | $t4 |"
echo "| default ops.list, full output (best of 3) | ${default_s} s | < 3 s | $t3 |"
echo "| -j1 / -j2, --all md+json | ${j1_s} s / ${j2_s} s | -j2 faster | $t5 |"
echo "| -j1 and -j2 output | $same | identical | $([ "$same" = identical ] && echo yes || echo NO) |"
echo "| files rewritten by a second run | ${rewritten:-?} | 0 | $([ "${rewritten:-1}" = 0 ] && echo yes || echo NO) |"
echo "| which KERNEL, --all (best of 5) | ${which_s} s | < 1 s | $t6 |"
echo "| which --diff FILE, --all (best of 5) | ${which_diff_s} s | < 1 s | $t7 |"
echo
echo "Phases of the 'everything' run (-v):"
echo
echo '```'
grep 'phase' "$work/phases.txt" | sed 's/^optrace: //'
echo '```'
echo
echo "Phases of a trace-only run, --all --check -v:"
echo
echo '```'
grep 'phase' "$work/check.txt" | sed 's/^optrace: //'
echo '```'
exit $status
