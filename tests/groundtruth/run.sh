#!/bin/sh
# run.sh OPTRACE SOURCE OUTDIR: optrace against the real thing (README.md).
#
#   1. setup.sh: Debian 12's python3-torch (1.13.1) on the host, Debian 13's
#      (2.6.0) in a cached chroot
#   2. record.py at both releases, fresh: the aten ops each call of calls.py
#      dispatches and the autograd nodes it makes (OUTDIR/VER.json)
#   3. optrace -t VER on the same ops, each with !full (OUTDIR/trace-VER/)
#   4. compare.py at both releases, on the CPU main path and, as a baseline,
#      with "main" ignored (OUTDIR/compare-VER.txt, -baseline.txt, .json)
#
# GROUNDTRUTH_ENFORCE=1: exit 1 when a threshold is missed; 0 (default):
# report only. UPDATE=1: copy the fresh recordings to tests/groundtruth/data/.
# Exit status: 0 ok (or report only), 1 a threshold missed while enforced,
# 2 the harness itself failed (setup, calls.py --check, a recording, optrace
# or compare).
set -u

here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 3 ] || { echo "usage: run.sh OPTRACE SOURCE OUTDIR" >&2; exit 2; }
optrace=$1 source=$2 out=$3
enforce=${GROUNDTRUTH_ENFORCE:-0}
python=/usr/bin/python3   # Debian's: it sees /usr/lib/python3/dist-packages
releases="1.13.1 2.6.0"

say() { echo "groundtruth: $*" >&2; }
die() { say "$*"; exit 2; }

start=$(date +%s)
"$here/setup.sh" || die "setup failed"
root=$("$here/setup.sh" --print-root)
case $out in ""|/) die "refusing OUTDIR '$out'" ;; esac
rm -rf "$out" && mkdir -p "$out" || die "cannot make $out"

# ---- record -------------------------------------------------------------------

"$python" "$here/record.py" --release 1.13.1 --out "$out/1.13.1.json" || die "recording 1.13.1 failed"

# In the chroot: the two scripts copied in, /proc and /sys mounted in a
# mount namespace of our own (gone when it ends; torch reads the CPU there).
work=$(mktemp -d "$root/tmp/groundtruth.XXXXXX") || die "cannot make a folder in $root/tmp"
cp "$here/calls.py" "$here/record.py" "$work/"
inside=/tmp/$(basename "$work")
unshare --mount --fork sh -c '
    mount -t proc proc "$1/proc" && mount --rbind /sys "$1/sys" &&
    chroot "$1" /usr/bin/python3 "$2/record.py" --release 2.6.0 --out "$2/2.6.0.json"' \
    sh "$root" "$inside"
rc=$?
[ $rc -eq 0 ] && mv "$work/2.6.0.json" "$out/2.6.0.json"
rm -rf "$work"
[ $rc -eq 0 ] || die "recording 2.6.0 in $root failed"

for v in $releases; do
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$out/$v.json" "$here/data/$v.json" && say "updated tests/groundtruth/data/$v.json"
    elif ! cmp -s "$out/$v.json" "$here/data/$v.json"; then
        say "note: the recording at $v differs from tests/groundtruth/data/$v.json" \
            "(diff $out/$v.json $here/data/$v.json; UPDATE=1 rewrites it)"
    fi
done

# every op of ops.list has a call; each composite claim holds at both tags
# (in native_functions.yaml and in the recordings of data/)
"$python" "$here/calls.py" --check "$source" "$here/../../ops.list" >&2 || die "calls.py --check failed"

# ---- trace and compare ----------------------------------------------------------

"$python" "$here/calls.py" | sed 's/$/ !full/' >"$out/ops.list" || die "calls.py failed"
status=0
for v in $releases; do
    "$optrace" -q -t "$v" --source "$source" -o "$out/trace-$v" --format json "$out/ops.list"
    rc=$?
    [ $rc -le 1 ] || die "optrace -t $v failed (exit status $rc)"
    "$python" "$here/compare.py" --source "$source" --ignore-main --json "$out/compare-$v-baseline.json" \
        "$out/trace-$v/trace.json" "$out/$v.json" >"$out/compare-$v-baseline.txt"
    [ $? -le 1 ] || die "compare.py failed at $v (baseline)"
    "$python" "$here/compare.py" --source "$source" --json "$out/compare-$v.json" \
        "$out/trace-$v/trace.json" "$out/$v.json" >"$out/compare-$v.txt"
    rc=$?
    [ $rc -le 1 ] || die "compare.py failed at $v"
    [ $rc -eq 0 ] || status=1
    echo "== groundtruth $v (per-op misses: $out/compare-$v.txt)"
    sed -n '/^-- /,$p' "$out/compare-$v.txt"
    echo "   baseline, main ignored:"
    sed -n '/^forward\|^backward/s/^/   /p' "$out/compare-$v-baseline.txt"
done
say "$(($(date +%s) - start)) s"
if [ $status -ne 0 ]; then
    if [ "$enforce" = 1 ]; then
        echo "== groundtruth: FAILED (a threshold is missed; GROUNDTRUTH_ENFORCE=1)"
        exit 1
    fi
    echo "== groundtruth: thresholds missed, report only (GROUNDTRUTH_ENFORCE=0)"
fi
exit 0
