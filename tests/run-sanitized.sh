#!/bin/sh
# run-sanitized.sh BUILD SOURCE CHECK_BINARY...: what `make asan` (ASan
# and UBSan) and `make ubsan` (UBSan alone) check, with the sanitizer
# build in BUILD (optrace, suites).
#
#  1. every Check suite, as `make test` runs them (OPTRACE etc. come from
#     the environment make sets);
#  2. a real --all of every format at 1.13.1 and at 2.6.0 (with ./ops.list)
#     from the checkout SOURCE, each output removed once counted (half a
#     gigabyte each).
#
# Every sanitizer report, from any process (a forked test, an optrace run
# by a test), is written to BUILD/sanitizer-logs/ instead of a stderr that
# a test may swallow. Fails when a suite fails, an --all run is fatal, or
# any report was written.
set -u
cd "$(dirname "$0")/.." || exit 2
[ $# -ge 2 ] || { echo "usage: $0 BUILD SOURCE CHECK_BINARY..." >&2; exit 2; }
build=$1
source=$2
shift 2
logs=$PWD/$build/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"

# One log_path for every tool: with ASan and UBSan together the runtime keeps one.
# intercept_tls_get_addr=0: up to LLVM 16 (Debian 12 has clang 14) the
# runtime's __tls_get_addr interceptor can take a glibc >= 2.25 dynamic TLS
# block for an old glibc's header, and LeakSanitizer's tracer then reads a
# bogus range and dies with "Tracer caught signal 11" at exit, no leak
# reported (google/sanitizers#1322). Here it hit 3 to 8 of 12 runs that load
# Graphviz's plugins. Only the dynamic TLS of dlopen'ed libraries goes
# unscanned; static TLS, stacks and globals are still roots.
export ASAN_OPTIONS="log_path=$logs/report:exitcode=23:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:intercept_tls_get_addr=0"
export UBSAN_OPTIONS="log_path=$logs/report:exitcode=23:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
# instrumented code runs several times slower: stretch Check's test timeouts
export CK_TIMEOUT_MULTIPLIER="${CK_TIMEOUT_MULTIPLIER:-10}"

status=0
tests/run-all.sh "$@" || status=1

for v in 1.13.1 2.6.0; do
    out=$build/all-$v
    echo "== optrace --all -t $v --format md,json,html"
    start=$(date +%s)
    "$build/optrace" -q -s "$source" -t "$v" --all --format md,json,html -o "$out" ops.list
    rc=$?
    echo "   exit status $rc, $(find "$out" -type f 2>/dev/null | wc -l) files, $(du -sh "$out" 2>/dev/null | cut -f1) on disk, $(($(date +%s) - start)) s"
    # 1: written, some layer not found (expected on --all); 2: fatal
    [ $rc -le 1 ] || status=1
    # what is checked is the run, not the pages: give the disk back
    rm -rf "$out"
done

reports=$(find "$logs" -type f | wc -l)
if [ "$reports" -ne 0 ]; then
    echo "== $reports sanitizer report file(s) in $logs:"
    for f in "$logs"/*; do
        echo "--- $f"
        head -60 "$f"
    done
    status=1
else
    echo "== no sanitizer reports"
fi
[ $status -eq 0 ] && echo "== sanitized run passed" || echo "== sanitized run FAILED"
exit $status
