#!/bin/sh
# run-unit.sh BUILD CHECK_BINARY...: run every Check suite from the
# repository root; fail if any suite fails.
set -u
build=$1; shift
status=0
for t in "$@"; do
    echo "== $t"
    OPTRACE="${OPTRACE:-$build/optrace}" "$t" || status=1
done
exit $status
