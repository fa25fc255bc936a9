#!/usr/bin/env bash
# In CI (or with CORUN_VALGRIND=1): the faster unit tests and a short run under valgrind's
# memcheck, which fails on any error and on definite or indirect leaks. (test_gpu and
# test_pcie_bubble are left to the ASan+UBSan build: under valgrind they take minutes; the
# latter was clean under valgrind on 2026-11-26, 323 s. test_solo, 28 s under valgrind, too:
# the spatial run below makes its private-mode references with solo.c, in a catalog of its own
# so that none is cached.)
. "$(dirname "$0")/lib.sh"
if [ -z "${CI:-}" ] && [ -z "${CORUN_VALGRIND:-}" ]; then
    skip "valgrind checks run in CI or with CORUN_VALGRIND=1"
fi
command -v valgrind >/dev/null || skip "valgrind not found"
vg() {
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --show-leak-kinds=definite,indirect "$@"
}
export CORUN_DATADIR="$top_srcdir"
# Unit tests that record many epochs record fewer under valgrind (test_runfile: 15, not 150).
export CORUN_UNDER_VALGRIND=1
cd "$top_builddir"
n=0
for t in test_util test_tempfile test_conftable test_scenario test_scenario_unassigned test_metrics test_trace test_cache test_wake test_noc test_dram test_dram_queue test_dram_bw \
    test_runfile test_runfile_mix test_runfile_schema test_runfile_damage test_catalog test_catalog_query test_catalog_files test_lesson test_plot test_pcie \
    test_accel_scenario test_prophet_model test_prophet_schedule test_slurm test_gpu_shared test_gpu_shared_run \
    test_reproduce_prophet test_accel_runfile test_reproduce_scaleout test_slurm_job; do
    [ -x "tests/unit/$t" ] || continue
    vg "tests/unit/$t" >"$TMPD/$t.out" 2>&1 || { cat "$TMPD/$t.out"; fail "$t under valgrind"; }
    n=$((n + 1))
done
XDG_DATA_HOME="$TMPD/xdg" vg "$CORUN" run "$top_srcdir/tests/data/good/small.cfg" --epochs 1 \
    >/dev/null 2>"$TMPD/run.err" \
    || { cat "$TMPD/run.err"; fail "corun run under valgrind"; }
# The order-free rules on two threads: first with the references run ahead, then (cached) with
# the shared run's SMs shared out between the threads.
for i in 1 2; do
    XDG_DATA_HOME="$TMPD/xdg" vg "$CORUN" run "$top_srcdir/tests/data/good/small.cfg" --epochs 1 \
        --set gpu.order_free=true --threads 2 >/dev/null 2>"$TMPD/run.err" \
        || { cat "$TMPD/run.err"; fail "corun run --set gpu.order_free=true --threads 2 under valgrind"; }
done
cat >"$TMPD/accel.cfg" <<'CFG'
mode = "accelerator"; name = "tiny"; gpu = "k40"; seed = 2;
applications = (
  { name = "q"; role = "ls"; qos_target = 2.0; arrival = "poisson"; rate_qps = 50000; queries = 3;
    tasks = ( { type = "h2d"; bytes = 3000; },
              { type = "kernel"; kernel = { tbs = 15; warps_per_tb = 2; insts_per_warp = 300;
                mem_fraction = 0.05; footprint_bytes = 65536; }; },
              { type = "d2h"; bytes = 3000; copy = "exclusive"; } ); },
  { name = "b"; role = "batch"; instances = 2;
    tasks = ( { type = "kernel"; kernel = { tbs = 30; warps_per_tb = 2; insts_per_warp = 500;
                mem_fraction = 0.05; footprint_bytes = 65536; }; } ); }
);
CFG
vg "$CORUN" run "$TMPD/accel.cfg" --json --out "$TMPD/accel.h5" >/dev/null 2>"$TMPD/arun.err" \
    || { cat "$TMPD/arun.err"; fail "corun run (accelerator) under valgrind"; }
vg "$CORUN" show "$TMPD/accel.h5" >/dev/null 2>"$TMPD/ashow.err" \
    || { cat "$TMPD/ashow.err"; fail "corun show (accelerator run file) under valgrind"; }
set +e
vg "$CORUN" check "$top_srcdir/tests/data/bad/several_mistakes.cfg" >/dev/null 2>"$TMPD/check.err"
rc=$?
set -e
[ $rc -eq 2 ] || { cat "$TMPD/check.err"; fail "corun check under valgrind: exit $rc"; }
set +e
vg "$CORUN" check "$top_srcdir/tests/data/bad/accel_unknown_app.cfg" >/dev/null 2>"$TMPD/acheck.err"
rc=$?
set -e
[ $rc -eq 2 ] || { cat "$TMPD/acheck.err"; fail "corun check (accelerator) under valgrind: exit $rc"; }
# A kernel profile that loads but fits no SM: check freed it only when it fitted.
set +e
vg "$CORUN" check "$top_srcdir/tests/data/bad_kernels/no_fit.cfg" >/dev/null 2>"$TMPD/kcheck.err"
rc=$?
set -e
[ $rc -eq 2 ] || { cat "$TMPD/kcheck.err"; fail "corun check (kernel profile) under valgrind: exit $rc"; }
echo "valgrind: $n unit test programs, a spatial and an accelerator run and three failing checks are clean"
