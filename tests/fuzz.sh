#!/usr/bin/env bash
# The libFuzzer harnesses (tests/fuzz): the scenario loader, the run-file reader and the other
# files' readers (presets, profiles, models, lessons, suites, traces, journals, job manifests).
# In CI (or with CORUN_FUZZ=1) a clang tree with ASan+UBSan and libFuzzer instrumentation is
# built in tests/fuzz-build, then each harness runs for FUZZ_SECONDS (default 10) from its seed
# corpus in the source tree (new inputs go to a scratch directory, never into the tree). A
# crash, a leak, a hang (an input that takes over 300 s of wall time: the harnesses run niced,
# so on a busy machine that is much less CPU) or undefined behaviour fails the test
# and leaves the input in tests/fuzz-build/crashes; so does a fault of corun's own code in the
# child process the run-file readers read a file in first (below).
# In the suite each harness replays its whole corpus, then mutates for what is left of the 10 s:
# a smoke test (20 s each kept the suite over its 15 minutes; docs/results.md, 2026-12-06).
# `make fuzz` is the search: the same for 300 s each, or FUZZ_SECONDS.
. "$(dirname "$0")/lib.sh"
if [ -z "${CI:-}" ] && [ -z "${CORUN_FUZZ:-}" ]; then
    skip "fuzzing runs in CI, with CORUN_FUZZ=1 or with make fuzz"
fi
command -v clang >/dev/null || skip "clang not found (Debian package clang)"
[ ! -f "$top_srcdir/config.status" ] || skip "source tree is configured in place; the fuzz build needs a clean one"
seconds=${FUZZ_SECONDS:-10}
fz="$top_builddir/tests/fuzz-build"
# A tree kept from a run without dependency tracking holds objects built against older headers:
# made again.
if grep -qs "^ac_cs_config=.*disable-dependency-tracking" "$fz/config.status"; then rm -rf "$fz"; fi
mkdir -p "$fz/crashes"
cd "$fz"
if [ ! -f Makefile ]; then
    # -g1: line tables only, all a crash report needs; it compiles in a fifth less time than -g.
    # --enable-werror: the suite's one clang build of corun's sources, so clang's warnings (it
    # warns where gcc does not: a format string passed on in a va_list) stop CI too.
    "$top_srcdir/configure" --quiet CC=clang CFLAGS="-O2 -g1" --enable-sanitizers --enable-fuzzing \
        --enable-werror >configure.log 2>&1 || { cat configure.log; fail "configure"; }
fi
make -j"$(nproc)" corun_sim_id.h tests/fuzz/fuzz_scenario tests/fuzz/fuzz_runfile \
    tests/fuzz/fuzz_files >make.log 2>&1 ||
    { tail -50 make.log; fail "fuzz build"; }
export CORUN_DATADIR="$top_srcdir"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/fuzz/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for h in scenario runfile files; do
    rm -rf "scratch-$h"
    mkdir "scratch-$h"
    set +e
    nice "tests/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=300 -print_final_stats=1 \
        -artifact_prefix="$fz/crashes/$h-" "scratch-$h" "$top_srcdir/tests/fuzz/corpus/$h" \
        >"$h.log" 2>&1
    rc=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$h.log" | tail -1)
    if [ $rc -ne 0 ]; then
        grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$h.log" | head -20 >&2
        fail "fuzz_$h failed after ${runs:-?} executions (log: $fz/$h.log)"
    fi
    # The run-file readers read a file first in a child process (src/io/runfile_read.c), since
    # HDF5 trusts what a damaged file forges: it crashes, or allocates a forged 4 GB (libFuzzer
    # then ends the child as out of memory). The parent refuses the file and the harness goes
    # on, as it must; but corun's own faults there would pass unseen. So a report (ASan's, or
    # libFuzzer's out of memory) whose first frame past the sanitizer's and libFuzzer's own is
    # corun's code, or any undefined behaviour (only corun's code is instrumented), fails it.
    ours=$(awk '
        /ERROR: AddressSanitizer|ERROR: libFuzzer: out-of-memory/ { want = 1; next }
        want && /^ *#[0-9]+ / {
            if ($0 ~ /__interceptor_|__asan|__sanitizer|fuzzer::| in (malloc|calloc|realloc) /)
                next
            if ($0 ~ /\/(src|tests\/fuzz)\/[a-z_\/]+\.c:[0-9]+/) print
            want = 0
        }
        / runtime error: / { print }' "$h.log" | sort | uniq -c | sort -rn | head -10)
    if [ -n "$ours" ]; then
        printf '%s\n' "$ours" >&2
        fail "fuzz_$h: corun's own code failed in the run file reader's child (log: $fz/$h.log)"
    fi
    echo "fuzz_$h: ${runs:-?} executions in $seconds s, 0 crashes in corun's code"
done
