#!/usr/bin/env bash
# Themis training end to end: `train themis --quick` prints its error table and writes a model
# file that a themis60 run then loads and predicts with; the same seed gives the same model
# with one worker or two; a model for another preset predicts with a warning naming both
# configurations; a missing one and a corrupt one are refused with the file and the command
# that regenerates it.
. "$(dirname "$0")/../lib.sh"

t0=$(date +%s.%N)
"$CORUN" train themis --gpu themis60 --quick --out "$TMPD/m.cfg" >"$TMPD/train.txt" \
    2>"$TMPD/train.err" || fail "train themis --quick: exit $?: $(cat "$TMPD/train.err")"
t1=$(date +%s.%N)
# The time it took: at most the command's own wall time, with one job.
took=$(sed -n 's/^loss (eq\. 8) on the training samples: [0-9.]*; took \([0-9.]*\) s with 1 job$/\1/p' "$TMPD/train.txt")
[ -n "$took" ] && awk -v a="$took" -v t0="$t0" -v t1="$t1" 'BEGIN { exit !(a > 0 && a <= t1 - t0 + 0.05) }' ||
    fail "the loss line's time: $(grep '^loss' "$TMPD/train.txt") (the command took $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s)"
grep -q '^train  all  *[0-9]' "$TMPD/train.txt" || fail "train row: $(cat "$TMPD/train.txt")"
grep -q '^test   all  *[0-9]' "$TMPD/train.txt" || fail "test row: $(cat "$TMPD/train.txt")"
grep -q 'paper .*9.5%' "$TMPD/train.txt" || fail "the paper's figure: $(cat "$TMPD/train.txt")"
grep -q '^# Regenerate with: corun train themis --gpu themis60 --quick' "$TMPD/m.cfg" ||
    fail "model comment: $(head -5 "$TMPD/m.cfg")"
grep -q '^layers = \[12, 12, 12, 2\];' "$TMPD/m.cfg" || fail "layers: $(grep layers "$TMPD/m.cfg")"
grep -q '^gpu = "themis60";$' "$TMPD/m.cfg" && grep -q '^sms = 60;$' "$TMPD/m.cfg" ||
    fail "training configuration: $(head -20 "$TMPD/m.cfg")"

# Two workers, the same seed: the same network (the comment's timing aside).
"$CORUN" train themis --gpu themis60 --quick -j 2 --out "$TMPD/m2.cfg" >"$TMPD/train2.txt" 2>&1 ||
    fail "train themis --quick -j 2: exit $?"
grep -Eq '; took [0-9.]+ s with 2 jobs$' "$TMPD/train2.txt" || fail "-j 2's loss line: $(grep '^loss' "$TMPD/train2.txt")"
diff <(grep -v '^#' "$TMPD/m.cfg") <(grep -v '^#' "$TMPD/m2.cfg") >/dev/null ||
    fail "-j 2 trained a different model"

# A data directory whose themis60 model is the new one; a themis60 pair predicts with it.
mkdir -p "$TMPD/d/data/models"
ln -s "$top_srcdir/data/gpus" "$TMPD/d/data/gpus"
ln -s "$top_srcdir/data/kernels" "$TMPD/d/data/kernels"
cp "$TMPD/m.cfg" "$TMPD/d/data/models/themis-themis60.cfg"
cat >"$TMPD/pair.cfg" <<'EOF'
name = "themis pair";
gpu = "themis60";
seed = 3;
epochs = 2;
epoch_cycles = 20000;
kernels = ( { name = "pfn"; sms = 30; }, { name = "kmeans"; sms = 30; } );
EOF
CORUN_DATADIR="$TMPD/d" "$CORUN" run "$TMPD/pair.cfg" --predictor themis --json \
    >"$TMPD/run.json" 2>"$TMPD/run.err" || fail "run --predictor themis: $(cat "$TMPD/run.err")"
python3 - "$TMPD/run.json" <<'PY' || fail "run --predictor themis JSON: $(cat "$TMPD/run.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["epochs"]) == 2
for e in r["epochs"]:
    assert e["predictor"] == "themis", e
    for k in e["kernels"]:
        assert isinstance(k["np_pred"], float) and k["np_pred"] > 0, k
PY

expect_bad() { # WHAT CMD...: exit 2, messages in $TMPD/err
    local what=$1 rc
    shift
    set +e
    "$@" >/dev/null 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2: $(cat "$TMPD/err")"
}
sed -e 's/themis60/hbm80/' "$TMPD/pair.cfg" >"$TMPD/hbm.cfg"

# Trained for themis60, offered for hbm80: it predicts, and warns once, naming both.
cp "$TMPD/m.cfg" "$TMPD/d/data/models/themis-hbm80.cfg"
CORUN_DATADIR="$TMPD/d" "$CORUN" run "$TMPD/hbm.cfg" --predictor themis --catalog "$TMPD/cat.db" \
    >"$TMPD/out" 2>"$TMPD/err" || fail "model for another preset: exit $?: $(cat "$TMPD/err")"
[ "$(grep -c 'warning: themis model trained on themis60 with 60 SMs, used on hbm80 with 80 SMs' \
    "$TMPD/err")" = 1 ] || fail "other preset: $(cat "$TMPD/err")"

# Missing: the file and the command.
rm "$TMPD/d/data/models/themis-hbm80.cfg"
CORUN_DATADIR="$TMPD/d" expect_bad "missing model" "$CORUN" run "$TMPD/hbm.cfg" --predictor themis
grep -q 'themis-hbm80.cfg' "$TMPD/err" && grep -q 'corun train themis --gpu hbm80' "$TMPD/err" ||
    fail "missing model: $(cat "$TMPD/err")"

# Corrupt: weights cut short.
sed -e '/^weights = \[/,/^\];/{/^  /d}' -e 's/^weights = \[/weights = [ 1.0/' "$TMPD/m.cfg" \
    >"$TMPD/d/data/models/themis-themis60.cfg"
CORUN_DATADIR="$TMPD/d" expect_bad "corrupt model" "$CORUN" run "$TMPD/pair.cfg" --predictor themis
grep -q 'themis-themis60.cfg:[0-9]*: weights: .*got 1$' "$TMPD/err" ||
    fail "corrupt model: no file:line: $(cat "$TMPD/err")"
grep -q 'regenerate it with `corun train themis --gpu themis60`' "$TMPD/err" ||
    fail "corrupt model: no regenerate command: $(cat "$TMPD/err")"

# Not a trainable model: bad input.
expect_bad "train nope" "$CORUN" train nope --gpu themis60
grep -q 'no trainable model "nope"' "$TMPD/err" || fail "train nope: $(cat "$TMPD/err")"
# A worker killed part-way is a failure while running, exit 1, named on stderr (it was exit 2,
# as for bad input), and no model is written.
run_killing_first_worker "$TMPD/lost.txt" "$TMPD/lost.err" \
    "$CORUN" train themis --gpu themis60 --quick -j 2 --out "$TMPD/lost.cfg"
[ "$killed_rc" -eq 1 ] || fail "train themis with a killed worker: exit $killed_rc: $(cat "$TMPD/lost.err")"
grep -q '^corun: train themis: .*: its worker process was killed by signal 9' "$TMPD/lost.err" ||
    fail "train themis: the killed run is not named: $(cat "$TMPD/lost.err")"
[ ! -e "$TMPD/lost.cfg" ] || fail "train themis wrote a model after a killed worker"

echo "train themis: quick training, deterministic with -j 2, run with the model, bad models"
