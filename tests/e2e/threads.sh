#!/usr/bin/env bash
# `run --threads N`: the kernels' private-mode references, separate simulations, are extended
# side by side, and the results do not depend on N: the same JSON and the same run-file
# datasets with 1, 2 and 4 threads, each with a fresh catalog so that every reference is
# simulated. A four-kernel mix where two kernels share one reference (the same profile on as
# many SMs) is among them. Each is run a second time, its references then read from the
# catalog: with none to run ahead, the shared run's memory side (slices, DRAM) takes the
# second thread (gpu_set_split), and the results are again those of one thread. Bad values
# are refused with exit status 2.
. "$(dirname "$0")/../lib.sh"
cat >"$TMPD/quad.cfg" <<'CFG'
name = "four kernels, two alike";
gpu = "hbm80";
seed = 3;
epochs = 2;
epoch_cycles = 30000;
kernels = ( { name = "stream"; }, { name = "bino"; }, { name = "stream"; }, { name = "euler3d"; } );
CFG
for sc in "$top_srcdir/scenarios/default.cfg" "$TMPD/quad.cfg"; do
    for n in 1 2 4; do
        XDG_DATA_HOME="$TMPD/xdg$n" "$CORUN" run "$sc" --epochs 2 --set epoch_cycles=30000 \
            --threads $n --json --out "$TMPD/run$n.h5" >"$TMPD/out$n.json" ||
            fail "run --threads $n on $sc"
        XDG_DATA_HOME="$TMPD/xdg$n" "$CORUN" run "$sc" --epochs 2 --set epoch_cycles=30000 \
            --threads $n --json >"$TMPD/warm$n.json" || fail "run --threads $n on $sc again"
    done
    for n in 2 4; do
        cmp -s "$TMPD/out1.json" "$TMPD/out$n.json" || fail "$sc: --threads $n differs from 1"
        cmp -s "$TMPD/out1.json" "$TMPD/warm$n.json" ||
            fail "$sc: --threads $n, references cached, differs from 1"
        if command -v h5diff >/dev/null; then
            for d in /per_kernel /system /partition; do
                h5diff "$TMPD/run1.h5" "$TMPD/run$n.h5" $d $d >/dev/null ||
                    fail "$sc: dataset $d differs with --threads $n"
            done
        fi
    done
    rm -f "$TMPD"/run*.h5
done
grep -q '"np": 0\.[0-9]' "$TMPD/out1.json" || fail "no NP measured: $(head -c 300 "$TMPD/out1.json")"

set +e
"$CORUN" run "$top_srcdir/scenarios/default.cfg" --threads 0 >/dev/null 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "--threads 0: exit $rc, expected 2"
grep -qF -- "--threads: expected a whole number from 1 to 64, got '0'" "$TMPD/err" || fail "$(cat "$TMPD/err")"
echo ok
