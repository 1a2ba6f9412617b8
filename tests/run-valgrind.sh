#!/bin/sh
# run-valgrind.sh OPTRACE SOURCE: `make valgrind`. A real run of ./ops.list
# at 1.13.1 and at 2.6.0, every format, under memcheck: any error, or any
# definite, indirect or possible leak, fails. Third-party caches that live
# as long as the process are suppressed in tests/valgrind.supp (library
# frames only).
set -u
cd "$(dirname "$0")/.." || exit 2
[ $# -eq 2 ] || { echo "usage: $0 OPTRACE SOURCE" >&2; exit 2; }
bin=$1
source=$2
dir=$(dirname "$bin")/valgrind
rm -rf "$dir"
mkdir -p "$dir"

status=0
for v in 1.13.1 2.6.0; do
    echo "== valgrind optrace -t $v ops.list"
    valgrind --quiet --error-exitcode=99 --leak-check=full \
        --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect,possible \
        --suppressions=tests/valgrind.supp --num-callers=40 --log-file="$dir/$v.log" \
        "$bin" -q -j 2 -s "$source" -t "$v" --format md,json,html -o "$dir/out-$v" ops.list
    rc=$?
    # 0 or 1 are optrace's own statuses (1: some layer not found); 99 is valgrind's
    if [ $rc -gt 1 ] || [ -s "$dir/$v.log" ]; then
        echo "   exit status $rc; $dir/$v.log:"
        head -80 "$dir/$v.log"
        status=1
    else
        echo "   clean (exit status $rc)"
    fi
done
[ $status -eq 0 ] && echo "== valgrind: no errors, no leaks" || echo "== valgrind: FAILED"
exit $status
