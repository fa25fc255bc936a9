#!/usr/bin/env bash
# Changing the mix headless: `run --add N:KERNEL --remove N:K` adds a library kernel before
# epoch N and removes one, the epochs list the kernels in the mix (by stable index), the run
# file keeps the whole story (show reads it back, h5dump reads it), a branch after the
# changes re-applies them and reproduces the run's next epoch exactly, and every mistake is
# refused with a message and exit 2.
. "$(dirname "$0")/../lib.sh"
small="$top_srcdir/tests/data/good/small.cfg"

"$CORUN" run "$small" --epochs 4 --add 2:lbm --remove 3:0 --out "$TMPD/m.h5" \
    --catalog "$TMPD/cat.db" --json >"$TMPD/m.json" 2>"$TMPD/m.err" ||
    fail "run with mix changes: $(cat "$TMPD/m.err")"
python3 - "$TMPD/m.json" <<'PY' || fail "mix in the JSON: $(cat "$TMPD/m.json")"
import json, sys
r = json.load(open(sys.argv[1]))
mix = [[(k["index"], k["name"]) for k in e["kernels"]] for e in r["epochs"]]
assert mix[0] == [(0, "stream"), (1, "compute")], mix
assert mix[1] == [(0, "stream"), (1, "compute"), (2, "lbm")], mix
assert mix[2] == mix[3] == [(1, "compute"), (2, "lbm")], mix
# The added kernel runs and is measured; after the removal the two share the 16 SMs.
e2 = r["epochs"][1]["kernels"]
assert e2[2]["instructions"] > 0 and 0 < e2[2]["np"] <= 1.05, e2
e4 = r["epochs"][3]["kernels"]
assert abs(e4[0]["sms"] - 8) < 1e-6 and abs(e4[1]["sms"] - 8) < 1e-6, e4
ev = [(x["epoch"], x["kind"], x["text"]) for x in r["events"]]
assert (1, "mix", "add lbm as kernel 2") in ev, ev
assert (2, "mix", "remove kernel 0 (stream)") in ev, ev
assert any(k == "repartition" and t.startswith("mix change: even split") for _, k, t in ev), ev
PY

# The run file holds it: show lists the same kernels per epoch.
"$CORUN" show "$TMPD/m.h5" --json >"$TMPD/s.json" 2>"$TMPD/s.err" ||
    fail "show: $(cat "$TMPD/s.err")"
python3 - "$TMPD/m.json" "$TMPD/s.json" <<'PY' || fail "show differs from the run"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
names = lambda r: [[k["name"] for k in e["kernels"]] for e in r["epochs"]]
assert names(a) == names(b), (names(a), names(b))
inst = lambda r: [[k["instructions"] for k in e["kernels"]] for e in r["epochs"]]
assert inst(a) == inst(b), (inst(a), inst(b))
PY
if command -v h5dump >/dev/null; then
    h5dump -d /per_kernel/in_mix "$TMPD/m.h5" >"$TMPD/dump" 2>&1 || fail "h5dump: $(cat "$TMPD/dump")"
fi

# A branch after epoch 3 re-applies both changes and simulates epoch 4 exactly as the run did.
"$CORUN" branch "$TMPD/m.h5" 3 --epochs 1 --json >"$TMPD/b.json" 2>"$TMPD/b.err" ||
    fail "branch: $(cat "$TMPD/b.err")"
python3 - "$TMPD/m.json" "$TMPD/b.json" <<'PY' || fail "the branch's epoch 4 differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["epochs"][3]["kernels"] == b["epochs"][0]["kernels"], (a["epochs"][3], b["epochs"][0])
PY

# Mistakes.
# (It lacked the "corun: " that --add's other refusals begin with.)
expect_bad "unknown kernel" "^corun: --add 2:nosuchkernel: unknown kernel .*nosuchkernel" \
    "$CORUN" run "$small" --epochs 3 --add 2:nosuchkernel
expect_bad "no epoch" "--add lbm: expected EPOCH:KERNEL" "$CORUN" run "$small" --add lbm
expect_bad "epoch past the run" "expected an epoch from 1 to 3" \
    "$CORUN" run "$small" --epochs 3 --add 9:lbm
expect_bad "no such index" "--remove 2:5: no kernel 5" "$CORUN" run "$small" --remove 2:5
expect_bad "the last kernel" "the last one in the mix" \
    "$CORUN" run "$small" --remove 2:0 --remove 2:1
expect_bad "bad index" "--remove" "$CORUN" run "$small" --remove 2:x
# Two lengths for one run: it logged "set epochs=2" and ran 1.
expect_bad "--set epochs and --epochs" "--set epochs=2 and --epochs 1 both give the run's length" \
    "$CORUN" run "$small" --set epochs=2 --epochs 1
# Two seeds: it logged "set seed=5" and ran --seed's 6.
expect_bad "--set seed and --seed" "--set seed=5 and --seed 6 both give the run's seed" \
    "$CORUN" run "$small" --set seed=5 --seed 6
# One SM per kernel: a fourth kernel on 3 SMs got none (its row 0, the system's metrics gone).
expect_bad "more kernels than SMs" \
    "--add 2:pf: the mix would hold 4 kernels on 3 SMs at epoch 2 .expected at least one SM per" \
    "$CORUN" run "$small" --epochs 3 --set gpu.sms=3 --add 2:lbm --add 2:pf

# A kernel to add whose thread block fits no SM of the run's GPU (10240 B of shared memory
# against the 9000 B set): refused before the run, naming its file and what does not fit (it
# was refused only at epoch 2, with epoch 1 recorded and its catalog row made).
expect_bad "no thread block fits" \
    "^corun: --add 2:tpacf: .*data/kernels/tpacf.cfg:[0-9]*: kernel tpacf: no thread block fits on an SM (shared memory" \
    "$CORUN" run "$small" --epochs 3 --set gpu.smem_per_sm_bytes=9000 --add 2:tpacf

# A refused change leaves nothing behind: no run file, no catalog row, no epoch simulated
# (issue 21, defect 8), so the same command can be retried once corrected.
for change in "--add 2:nosuchkernel" "--remove 2:5" "--remove 2:0 --remove 3:0" "--add 9:lbm" \
    "--set gpu.sms=3 --add 2:lbm --add 2:pf" "--set gpu.smem_per_sm_bytes=9000 --add 2:tpacf"; do
    rm -f "$TMPD/r.h5" "$TMPD/r.db"
    # shellcheck disable=SC2086
    if "$CORUN" run "$small" --epochs 3 $change --out "$TMPD/r.h5" --catalog "$TMPD/r.db" \
        >"$TMPD/r.out" 2>"$TMPD/r.err"; then
        fail "run $change: accepted"
    fi
    [ ! -e "$TMPD/r.h5" ] || fail "run $change: left $TMPD/r.h5 behind"
    [ ! -e "$TMPD/r.db" ] || fail "run $change: made a catalog"
    ! grep -q '^ *1 ' "$TMPD/r.out" || fail "run $change: simulated an epoch: $(cat "$TMPD/r.out")"
done

# A library kernel whose name is longer than a run file keeps (31 bytes) passed the checks
# before the run and was refused only when the run reached it: the run file and its catalog
# row were left behind, with the epochs before simulated (corun.1: every --add is refused
# before anything is simulated or recorded).
long=abcdefghij0123456789abcdefghij01 # 32 bytes
dd="$TMPD/dd"
mkdir -p "$dd/data/kernels"
ln -s "$top_srcdir/data/gpus" "$top_srcdir/data/models" "$dd/data/"
cp "$top_srcdir/data/kernels/lbm.cfg" "$dd/data/kernels/$long.cfg"
rm -f "$TMPD/r.h5" "$TMPD/r.db"
if CORUN_DATADIR="$dd" "$CORUN" run "$small" --epochs 3 --add "2:$long" --out "$TMPD/r.h5" \
    --catalog "$TMPD/r.db" >"$TMPD/r.out" 2>"$TMPD/r.err"; then
    fail "run --add 2:$long: accepted"
fi
grep -q -- "--add 2:$long: the kernel's name has 32 bytes, expected at most 31" "$TMPD/r.err" ||
    fail "run --add 2:$long: $(cat "$TMPD/r.err")"
[ ! -e "$TMPD/r.h5" ] || fail "run --add 2:$long: left $TMPD/r.h5 behind"
[ ! -e "$TMPD/r.db" ] || fail "run --add 2:$long: made a catalog"
! grep -q '^ *1 ' "$TMPD/r.out" || fail "run --add 2:$long: simulated an epoch: $(cat "$TMPD/r.out")"
# One byte shorter is taken.
cp "$top_srcdir/data/kernels/lbm.cfg" "$dd/data/kernels/${long%1}.cfg"
CORUN_DATADIR="$dd" "$CORUN" run "$small" --epochs 2 --add "2:${long%1}" >"$TMPD/r.out" \
    2>"$TMPD/r.err" || fail "run --add 2:${long%1}: $(cat "$TMPD/r.err")"
grep -q "${long%1}" "$TMPD/r.out" || fail "run --add 2:${long%1}: not in the mix: $(cat "$TMPD/r.out")"
# A scenario naming it: check said ok and run --out refused it (before simulating); both refuse
# it now, with the name's place.
printf 'name = "x"; gpu = "hbm80";\nkernels = ( { name = "stream"; }, { name = "%s"; } );\n' "$long" \
    >"$TMPD/long.cfg"
if CORUN_DATADIR="$dd" "$CORUN" check "$TMPD/long.cfg" >"$TMPD/r.out" 2>"$TMPD/r.err"; then
    fail "check of a scenario naming $long: accepted"
fi
grep -q "^$TMPD/long.cfg:2: kernels\[1\].name: \"$long\" has 32 bytes (expected at most 31, the longest name a run file keeps)$" \
    "$TMPD/r.err" && [ "$(wc -l <"$TMPD/r.err")" = 1 ] ||
    fail "check of a scenario naming $long: $(cat "$TMPD/r.err")"
echo "ok"
