#!/usr/bin/env bash
# `run --threads N`: the kernels' private-mode references, separate simulations, are extended
# side by side, and the results do not depend on N: the same JSON and the same run-file
# datasets with 1, 2 and 4 threads, each with a fresh catalog so that every reference is
# simulated. A four-kernel mix where two kernels share one reference (the same profile on as
# many SMs) is among them. Each is run a second time, its references then read from the
# catalog: with none to run ahead, the shared run's memory side (slices, DRAM) takes the
# second thread, blocks ahead of the SMs (gpu_set_split, gpu_split_span), and the results,
# JSON and datasets, are again those of one thread. The same
# under the order-free rules (gpu.order_free), where the shared run's SMs too are shared out
# among the threads (gpu_set_threads). Bad values are refused with exit status 2. Likewise
# sweep's and reproduce's --threads.
. "$(dirname "$0")/../lib.sh"
cat >"$TMPD/quad.cfg" <<'CFG'
name = "four kernels, two alike";
gpu = "hbm80";
seed = 3;
epochs = 2;
epoch_cycles = 30000;
kernels = ( { name = "stream"; }, { name = "bino"; }, { name = "stream"; }, { name = "euler3d"; } );
CFG
for rules in ordered order-free; do
for sc in "$top_srcdir/scenarios/default.cfg" "$TMPD/quad.cfg"; do
    set -- --epochs 2 --set epoch_cycles=30000
    [ $rules = ordered ] || set -- "$@" --set gpu.order_free=true
    for n in 1 2 4; do
        XDG_DATA_HOME="$TMPD/xdg$n" "$CORUN" run "$sc" "$@" --threads $n --json \
            --out "$TMPD/run$n.h5" >"$TMPD/out$n.json" || fail "run --threads $n on $sc ($rules)"
        [ $n -eq 1 ] && continue # the cold one-thread run is what the others are held to
        XDG_DATA_HOME="$TMPD/xdg$n" "$CORUN" run "$sc" "$@" --threads $n --json \
            --out "$TMPD/warm$n.h5" >"$TMPD/warm$n.json" ||
            fail "run --threads $n on $sc again ($rules)"
    done
    sc="$sc ($rules)"
    for n in 2 4; do
        cmp -s "$TMPD/out1.json" "$TMPD/out$n.json" || fail "$sc: --threads $n differs from 1"
        cmp -s "$TMPD/out1.json" "$TMPD/warm$n.json" ||
            fail "$sc: --threads $n, references cached, differs from 1"
        if command -v h5diff >/dev/null; then
            for d in /per_kernel /system /partition; do
                h5diff "$TMPD/run1.h5" "$TMPD/run$n.h5" $d $d >/dev/null ||
                    fail "$sc: dataset $d differs with --threads $n"
                h5diff "$TMPD/run1.h5" "$TMPD/warm$n.h5" $d $d >/dev/null ||
                    fail "$sc: dataset $d differs with --threads $n, references cached"
            done
        fi
    done
    rm -f "$TMPD"/run*.h5 "$TMPD"/warm*.h5
done
[ $rules = ordered ] && cp "$TMPD/out1.json" "$TMPD/ordered.json"
done
# The order-free rules are rules of their own: the quad mix's results are not the ordered ones.
! cmp -s "$TMPD/ordered.json" "$TMPD/out1.json" || fail "gpu.order_free=true changed nothing"
grep -q '"np": 0\.[0-9]' "$TMPD/out1.json" || fail "no NP measured: $(head -c 300 "$TMPD/out1.json")"

# sweep and reproduce take --threads for each worker's sessions, with the same results: a
# sweep of the tiny suite, first with its references simulated, then (other epochs, a new
# configuration) with them cached, where the split is on with 2; the HSM quick table, fresh
# measurements over a warm catalog.
suite="$top_srcdir/tests/data/good/tiny-suite.cfg"
for n in 1 2; do
    for e in 2 3; do
        "$CORUN" sweep "$suite" --combos none:static,hsm:static --epochs $e --threads $n \
            --catalog "$TMPD/sweep$n.db" >"$TMPD/sweep$n.$e" 2>&1 ||
            fail "sweep --threads $n --epochs $e: $(cat "$TMPD/sweep$n.$e")"
    done
    "$CORUN" runs --catalog "$TMPD/sweep$n.db" query "SELECT mix, predictor, config, mean_stp,
        mean_antt, mean_fairness, min_fairness, mean_are, max_are FROM sweep_results ORDER BY
        mix, predictor, config" | sed 's/corun build [^;,]*//' >"$TMPD/sweep$n.rows"
done
[ "$(wc -l <"$TMPD/sweep1.rows")" -eq 17 ] || fail "sweep rows: $(cat "$TMPD/sweep1.rows")"
cmp -s "$TMPD/sweep1.rows" "$TMPD/sweep2.rows" ||
    fail "sweep --threads 2 differs: $(diff "$TMPD/sweep1.rows" "$TMPD/sweep2.rows" | head)"
hsm() {
    "$CORUN" reproduce hsm --accuracy --quick --epochs 1 --epoch-cycles 20000 --predictors hsm \
        --threads "$1" --catalog "$TMPD/hsm.db" ${2:-} | grep -v ' s wall, '
}
hsm 1 >"$TMPD/hsm.cold" || fail "reproduce --threads 1"
hsm 2 --fresh >"$TMPD/hsm.2" || fail "reproduce --threads 2"
grep -q '^hsm  *all  *15 ' "$TMPD/hsm.2" || fail "HSM table: $(cat "$TMPD/hsm.2")"
cmp -s "$TMPD/hsm.cold" "$TMPD/hsm.2" ||
    fail "reproduce --threads 2 differs: $(diff "$TMPD/hsm.cold" "$TMPD/hsm.2" | head)"

set +e
"$CORUN" run "$top_srcdir/scenarios/default.cfg" --threads 0 >/dev/null 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "--threads 0: exit $rc, expected 2"
grep -qF -- "--threads: expected a whole number from 1 to 64, got '0'" "$TMPD/err" || fail "$(cat "$TMPD/err")"
for cmd in "sweep $suite" "reproduce hsm --accuracy"; do
    set +e
    "$CORUN" $cmd --threads 65 >/dev/null 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$cmd --threads 65: exit $rc, expected 2"
    grep -qF -- "--threads: expected a whole number from 1 to 64, got '65'" "$TMPD/err" ||
        fail "$cmd: $(cat "$TMPD/err")"
done
echo ok
