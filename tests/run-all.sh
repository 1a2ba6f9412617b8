#!/bin/sh
# run-all.sh CHECK_BINARY...: run every Check suite from the repository root
# (the fixture, the real releases and the end-to-end suites are all Check
# suites), then print one summary line. Fails if any suite fails.
#
# Each suite writes its scratch files to tests/tmp/<suite>/ (OT_TEST_SCRATCH,
# read by tu_tmpdir): removed when the suite passes, kept when it fails, so a
# run needs the disk of one suite at a time (--all outputs, real diffs), not
# of all of them.
set -u
cd "$(dirname "$0")/.." || exit 2
status=0
failed=""
for t in "$@"; do
    name=$(basename "$t")
    echo "== $name"
    OT_TEST_SCRATCH=tests/tmp/$name
    export OT_TEST_SCRATCH
    rm -rf "$OT_TEST_SCRATCH"
    start=$(date +%s)
    if "$t"; then
        rm -rf "$OT_TEST_SCRATCH"
    else
        status=1
        failed="$failed $name"
        echo "   (its files are kept in $OT_TEST_SCRATCH)"
    fi
    echo "   $name: $(($(date +%s) - start)) s"
done
if [ $status -eq 0 ]; then
    echo "== all $# suites passed"
else
    echo "== FAILED:$failed"
fi
exit $status
