#!/bin/sh
# run-all.sh CHECK_BINARY...: run every Check suite from the repository root
# (the fixture, the real releases and the end-to-end suites are all Check
# suites), then print one summary line. Fails if any suite fails.
set -u
cd "$(dirname "$0")/.." || exit 2
status=0
failed=""
for t in "$@"; do
    echo "== $(basename "$t")"
    if ! "$t"; then
        status=1
        failed="$failed $(basename "$t")"
    fi
done
if [ $status -eq 0 ]; then
    echo "== all $# suites passed"
else
    echo "== FAILED:$failed"
fi
exit $status
