#!/bin/sh
# run.sh BUILD [SOURCE]: run every libFuzzer harness built into BUILD/fuzz/
# (`make fuzz` builds them) for a bounded time, then report executions and
# findings per harness. Fails when a harness found anything (crash, leak,
# timeout, out-of-memory) or could not run.
#
#   FUZZ_SECONDS   time per harness (default 60)
#   FUZZ_JOBS      harnesses run at once (default 2)
#   FUZZ_ONLY      space-separated harness names to run (default all)
#
# Seeds are rebuilt every run in BUILD/fuzz/seeds/<harness>/ from the
# fixture, the templates, ops.list and, when SOURCE (the PyTorch checkout
# of `make test`) holds the tags, the real 1.13.1 and 2.6.0 trees. What the
# fuzzer learns stays in BUILD/fuzz/corpus/<harness>/ for the next run.
# Findings land in BUILD/fuzz/findings/<harness>/ (emptied when the harness
# runs again); keep each one, once fixed, in tests/fuzz/crashes/<harness>/
# (tests/check_fuzz.c replays them).
set -u
cd "$(dirname "$0")/../.." || exit 2

build=${1:-build-fuzz}
source=${2:-}
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-2}
dir=$build/fuzz
harnesses=${FUZZ_ONLY:-$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//' | tr '\n' ' ')}

for h in $harnesses; do
    if [ ! -x "$dir/$h" ]; then
        echo "run.sh: $dir/$h is not built (run 'make fuzz')" >&2
        exit 2
    fi
done

real_tags=""
if [ -n "$source" ] && [ -d "$source" ]; then
    for t in v1.13.1 v2.6.0; do
        git -C "$source" rev-parse -q --verify "refs/tags/$t" >/dev/null && real_tags="$real_tags $t"
    done
fi
[ -z "$real_tags" ] && echo "run.sh: warning: no real release in '$source': fixture seeds only" >&2

# ---- seeds ----------------------------------------------------------------------

seeds=$dir/seeds
rm -rf "$seeds"
for h in $harnesses; do
    rm -rf "${dir:?}/findings/$h"
    mkdir -p "$seeds/$h" "$dir/corpus/$h" "$dir/findings/$h"
done

# Each file from stdin (one path per line) copied to seeds/H/ under a name
# built from its path.
copy_seeds() {
    while IFS= read -r f; do
        [ -f "$f" ] && cp "$f" "$seeds/$1/$(echo "$f" | tr '/' '_')"
    done
}

# Split a YAML list file (stdin) into pieces of N entries: seeds/H/PREFIX-K.
split_entries() {
    awk -v out="$seeds/$1/$2" -v n="$3" '
        /^- / { if (count++ % n == 0) { if (f) close(f); f = out "-" int(count / n) } }
        f { print > f }'
}

# Every real file at both releases: "git show" of PATH from each tag, to stdout.
real_file() {
    for t in $real_tags; do git -C "$source" show "$t:$1" 2>/dev/null; done
}

# Real tree files under PREFIX matching a pattern, at most 64 KB each.
real_files() {
    for t in $real_tags; do
        git -C "$source" ls-tree -r -l "$t" -- "$1" |
            awk -v re="$2" '$4 <= 65536 && $5 ~ re { print $3, $5 }' |
            while read -r oid path; do
                git -C "$source" cat-file blob "$oid" > "$seeds/$3/$t-$(echo "$path" | tr '/' '_')"
            done
    done
}

fixture_natives="tests/fixture/v1/aten/src/ATen/native/native_functions.yaml
tests/fixture/v2/aten/src/ATen/native/native_functions.yaml"

case " $harnesses " in *" fuzz_opslist "*)
    echo ops.list | copy_seeds fuzz_opslist
    { printf '# torch-version: 2.6.0\r\n'; sed -n 's/^- func: \([a-z_0-9]*\).*/aten::\1 !full # x/p' $fixture_natives; } \
        > "$seeds/fuzz_opslist/fixture-aten.list"
    real_file aten/src/ATen/native/native_functions.yaml |
        sed -n 's/^- func: \([a-zA-Z_0-9.]*\)(.*/aten::\1/p' | head -400 > "$seeds/fuzz_opslist/real-aten.list"
    ;;
esac

case " $harnesses " in *" fuzz_schema "*)
    { cat $fixture_natives tests/fixture/v*/tools/autograd/derivatives.yaml
      real_file aten/src/ATen/native/native_functions.yaml
      real_file tools/autograd/derivatives.yaml; } |
        sed -n 's/^- \(func\|name\): //p' | sort -u |
        awk -v out="$seeds/fuzz_schema/s" '{ f = out NR; printf "%s", $0 > f; close(f) }'
    ;;
esac

case " $harnesses " in *" fuzz_registry "*)
    for v in v1 v2; do
        { cat "tests/fixture/$v/aten/src/ATen/native/native_functions.yaml"
          printf '\n#--derivatives--\n'
          cat "tests/fixture/$v/tools/autograd/derivatives.yaml"; } > "$seeds/fuzz_registry/fixture-$v"
    done
    real_file aten/src/ATen/native/native_functions.yaml | split_entries fuzz_registry native 40
    real_file tools/autograd/derivatives.yaml |
        awk '{ print } /^- name:/ { n++ }' | split_entries fuzz_registry deriv-raw 20
    for f in "$seeds"/fuzz_registry/deriv-raw-*; do
        [ -f "$f" ] || continue
        { printf '#--derivatives--\n'; cat "$f"; } > "${f%%-raw-*}-${f##*-raw-}" && rm "$f"
    done
    ;;
esac

case " $harnesses " in *" fuzz_mustache "*)
    ls templates/*.mustache | copy_seeds fuzz_mustache
    m=$seeds/fuzz_mustache
    printf '{{#c}}{{.}},{{/c}}{{^u}}none{{/u}}{{d.f.g}}{{{d.e}}}{{&s}}' > "$m/h-sections"
    printf '{{#x}}[{{#.}}{{.}}{{/.}}]{{/x}}{{! c }}{{=<%% %%>=}}<%%a%%><%%={{ }}=%%>' > "$m/h-delims"
    printf '  {{>p}}\n{{>zz}}{{>err}}\0{{a}}\n{{#d.l}}{{n}}{{>p}}{{/d.l}}' > "$m/h-partials"
    ;;
esac

case " $harnesses " in *" fuzz_scan_c "*)
    find tests/fixture -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.mm' |
        copy_seeds fuzz_scan_c
    real_files aten/src/ATen/native/ '\.(cpp|cu|cuh|h|mm)$' fuzz_scan_c
    ;;
esac

case " $harnesses " in *" fuzz_scan_py "*)
    find tests/fixture -name '*.py' -o -name '*.pyi' | copy_seeds fuzz_scan_py
    real_files torch/nn/ '\.pyi?$' fuzz_scan_py
    real_files torch/_decomp/ '\.py$' fuzz_scan_py
    for t in $real_tags; do
        for p in torch/_torch_docs.py torch/_tensor_docs.py; do
            git -C "$source" show "$t:$p" 2>/dev/null |
                split -l 600 - "$seeds/fuzz_scan_py/$t-$(basename "$p" .py)-"
        done
    done
    ;;
esac

case " $harnesses " in *" fuzz_tracejson "*)
    find tests/cases -name trace.json | copy_seeds fuzz_tracejson
    ;;
esac

# the page writer: NUL-separated fields (formula, then file, symbol, note,
# op, backend per step), the hostile names of check_hostile's untrusted cases
case " $harnesses " in *" fuzz_page "*)
    pg=$seeds/fuzz_page
    printf 'grad || grad\rx<script>x</script>\0aten/src/ATen/native/cudnn/RNN\n```\n<img src=x onerror="alert(1)">) <img> (.cpp\0lstm_cudnn\0a note\0lstm\0CUDA' > "$pg/fence"
    printf 'g\342\200\250x\0aten/src/ATen/native/cudnn) [click](https:/evil.example/RNN.cpp\0f`o`o\0https://evil.example www.evil.example a@b.example\0op\0CPU\r<script>' > "$pg/links"
    printf '\377\376\033]0;t\007\0RNN\377\376\033[2J\007.cpp\0s\342\200\256ym\0- 1. # > ---\0\302\205x\0\001\013\303(\300&lt;]]>' > "$pg/controls"
    printf '\0\0```\0    code\0=\0||\0\0\0|a|b|\0`\0`` `\0~~~\0[x]: https://evil.example\0' > "$pg/blocks"
    ;;
esac

case " $harnesses " in *" fuzz_testscan "*)
    find tests/fixture -name '*.py' | copy_seeds fuzz_testscan
    real_files torch/testing/_internal/opinfo/ '\.py$' fuzz_testscan
    real_files benchmarks/operator_benchmark/pt/ '\.py$' fuzz_testscan
    for f in test/test_ops_gradients.py test/test_ops_fwd_gradients.py test/test_ops_jit.py; do
        real_file "$f" > "$seeds/fuzz_testscan/$(echo "$f" | tr '/' '_')"
    done
    ;;
esac

# The which queries of the key, one per seed; its diffs, and a real one
case " $harnesses " in *" fuzz_kname "*)
    sed -n 's/^  query: "\(.*\)"$/\1/p' tests/which_key.yaml |
        awk -v out="$seeds/fuzz_kname/q" '{ f = out NR; printf "%s", $0 > f; close(f) }'
    ;;
esac

case " $harnesses " in *" fuzz_udiff "*)
    awk -v out="$seeds/fuzz_udiff/d" '/^  diff: \|/ { n++; f = out n; next }
        /^  [a-z]/ { f = "" } f { sub(/^    /, ""); print > f }' tests/which_key.yaml
    set -- $real_tags
    if [ $# -ge 2 ]; then
        git -C "$source" diff "$1" "$2" -- aten/src/ATen/native/SoftMax.cpp \
            aten/src/ATen/native/cuda/SoftMax.cu > "$seeds/fuzz_udiff/real"
    fi
    ;;
esac

# ---- run ---------------------------------------------------------------------------

# One harness: fuzz for $seconds; its log in BUILD/fuzz/logs/H.log.
run_one() {
    h=$1
    dict=""
    [ -f "tests/fuzz/$h.dict" ] && dict="-dict=tests/fuzz/$h.dict"
    # shellcheck disable=SC2086
    "$dir/$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$dir/findings/$h/" $dict \
        "$dir/corpus/$h" "$seeds/$h" > "$dir/logs/$h.log" 2>&1
    echo $? > "$dir/logs/$h.status"
}

mkdir -p "$dir/logs"
echo "run.sh: fuzzing $(echo $harnesses | wc -w) harnesses for $seconds s each, $jobs at once"
running=0
for h in $harnesses; do
    rm -f "$dir/logs/$h.status"
    run_one "$h" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait

status=0
printf '%-14s %12s %8s %8s  %s\n' harness executions exec/s corpus findings
for h in $harnesses; do
    log=$dir/logs/$h.log
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    corpus=$(ls "$dir/corpus/$h" | wc -l)
    found=$(ls "$dir/findings/$h" | wc -l)
    rc=$(cat "$dir/logs/$h.status" 2>/dev/null || echo "?")
    printf '%-14s %12s %8s %8s  %s\n' "$h" "${execs:-?}" "${speed:-?}" "$corpus" "$found"
    if [ "$found" -ne 0 ] || [ "$rc" != 0 ]; then
        status=1
        echo "run.sh: $h: exit status $rc; see $log and $dir/findings/$h/" >&2
    fi
done
exit $status
