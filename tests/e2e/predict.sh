#!/usr/bin/env bash
# Predictors end to end: `run --predictor` prints NP^ per kernel, records it and catalogs the
# error; unknown names are bad input with a did-you-mean; `train hsm --quick` writes a model
# that a run then loads; a corrupt model names the file, the line and how to regenerate it.
. "$(dirname "$0")/../lib.sh"
small="$top_srcdir/tests/data/good/small.cfg"

"$CORUN" run "$small" --epochs 2 --predictor hsm --json --out "$TMPD/a.h5" \
    --catalog "$TMPD/cat.db" >"$TMPD/a.json" 2>/dev/null || fail "run --predictor hsm: exit $?"
python3 - "$TMPD/a.json" <<'PY' || fail "run --predictor hsm JSON: $(cat "$TMPD/a.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["epochs"]) == 2
for e in r["epochs"]:
    assert e["predictor"] == "hsm", e
    for k in e["kernels"]:
        assert isinstance(k["np_pred"], float) and k["np_pred"] > 0, k
        assert abs(k["are"] - abs(k["np_pred"] - k["np"]) / k["np"]) < 1e-3, k
        assert k["class_pred"] in ("memory", "compute"), k
assert any(ev["kind"] == "predictor" and "hsm" in ev["text"] for ev in r["events"]), r["events"]
PY
# Recorded and read back; the catalog row names the predictor and its error.
"$CORUN" show "$TMPD/a.h5" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert all(isinstance(k["np_pred"], float) for e in r["epochs"] for k in e["kernels"]), r
' || fail "np_pred read back from the run file"
"$CORUN" runs --catalog "$TMPD/cat.db" query 'SELECT predictor, mean_are IS NOT NULL FROM runs' |
    tail -1 | grep -q 'hsm.*1' || fail "catalog row: $("$CORUN" runs --catalog "$TMPD/cat.db" query 'SELECT * FROM runs')"
# runs show gives the predictor's error it stores (it showed STP, ANTT and fairness only);
# a run without a predictor has none (record_replay's runs show checks the rest).
"$CORUN" runs --catalog "$TMPD/cat.db" show 1 |
    grep -Eq '^  NP error   mean [0-9.]+ %, max [0-9.]+ % \(\|predicted - true\| / true\)$' ||
    fail "runs show: no NP error: $("$CORUN" runs --catalog "$TMPD/cat.db" show 1)"

# Text form: the NP^ and error columns appear only with a predictor.
"$CORUN" run "$small" --epochs 1 --predictor oracle 2>/dev/null | grep -q ' NP^ *error' ||
    fail "text columns with a predictor"
"$CORUN" run "$small" --epochs 1 2>/dev/null | grep -q 'NP^' && fail "NP^ column without a predictor"
# The scenario's own predictor and allocator named again change nothing and note nothing
# (they read "none -> none (restarted)"); another one is noted once.
"$CORUN" run "$small" --epochs 1 --predictor none --allocator static >"$TMPD/same.txt" 2>&1 ||
    fail "the scenario's own predictor and allocator: $(cat "$TMPD/same.txt")"
! grep -qE '^  \[(predictor|allocator)\]' "$TMPD/same.txt" || fail "noted: $(cat "$TMPD/same.txt")"
"$CORUN" run "$small" --epochs 1 --set predictor=hsm --predictor hsm >"$TMPD/same.txt" 2>&1 ||
    fail "--set predictor=hsm --predictor hsm: $(cat "$TMPD/same.txt")"
[ "$(grep -c '^  \[predictor\]' "$TMPD/same.txt")" = 1 ] ||
    fail "--set predictor=hsm --predictor hsm: $(cat "$TMPD/same.txt")"

# --explain: each predictor's inputs and arithmetic after each epoch.
"$CORUN" run "$small" --epochs 1 --predictor hsm --explain 2>/dev/null >"$TMPD/x.txt"
grep -q '^  explain stream (hsm):' "$TMPD/x.txt" && grep -q 'NP^ = B_k / (c1 x RBH + c2)' "$TMPD/x.txt" ||
    fail "--explain hsm: $(cat "$TMPD/x.txt")"
"$CORUN" run "$small" --epochs 1 --predictor dase --explain 2>/dev/null | grep -q 'T_alone = T - stall' ||
    fail "--explain dase"

expect_bad "--predictor nope" 'unknown predictor "nope".*did you mean none' \
    "$CORUN" run "$small" --epochs 1 --predictor nope
sed 's/^epochs = .*/epochs = 1;\npredictor = "hsn";/' "$small" >"$TMPD/typo.cfg"
expect_bad "scenario predictor typo" "typo.cfg:[0-9]*: predictor: .*did you mean hsm" \
    "$CORUN" run "$TMPD/typo.cfg"
# A name given by --set is the --set's mistake, not the file's line 0 (or the file's own line
# of the setting it replaced).
expect_bad "--set predictor typo" "^corun: run: --set: predictor: unknown predictor \"hsn\".*did you mean hsm" \
    "$CORUN" run "$small" --epochs 1 --set predictor=hsn
expect_bad "--set predictor typo over the file's" "^corun: run: --set: predictor: unknown predictor \"dsae\"" \
    "$CORUN" run "$TMPD/typo.cfg" --set predictor=dsae

# Without --out, training replaces the data directory's model and keeps the one before as
# .prev; --quick there is refused before training (a quick fit replaced the shipped model).
mkdir -p "$TMPD/dd" && cp -r "$top_srcdir/data" "$TMPD/dd/" || fail "copy the data directory"
model="$TMPD/dd/data/models/hsm-hbm80.cfg"
cp "$model" "$TMPD/shipped.cfg"
expect_bad "train --quick without --out" "quick fits a model for tests.*give --out FILE" \
    env CORUN_DATADIR="$TMPD/dd" "$CORUN" train hsm --quick
cmp -s "$model" "$TMPD/shipped.cfg" || fail "train --quick changed the data directory's model"
# -j and --seed are themis' (hsm's fit took them and changed nothing): refused for hsm.
expect_bad "train hsm -j" "^corun: train: --jobs is for themis" \
    "$CORUN" train hsm --quick -j 2 --out "$TMPD/j.cfg"
expect_bad "train hsm --seed" "^corun: train: --seed is for themis" \
    "$CORUN" train hsm --quick --seed 5 --out "$TMPD/j.cfg"
[ ! -e "$TMPD/j.cfg" ] || fail "train hsm with a themis option wrote a model"
CORUN_DATADIR="$TMPD/dd" "$CORUN" train hsm --cycles 2000 >"$TMPD/train.txt" 2>/dev/null ||
    fail "train hsm --cycles 2000: exit $?"
grep -qx "wrote $model (the model it replaced is kept as $model.prev)" "$TMPD/train.txt" ||
    fail "train into the data directory: $(tail -1 "$TMPD/train.txt")"
cmp -s "$model.prev" "$TMPD/shipped.cfg" || fail "the model before is not kept whole"
grep -q 'cycles each' "$model" && ! cmp -s "$model" "$TMPD/shipped.cfg" ||
    fail "the new model was not written"

# Training writes a model that loads: a data directory whose hbm80 model is the new one.
"$CORUN" train hsm --gpu hbm80 --quick --out "$TMPD/m.cfg" >"$TMPD/train.txt" 2>/dev/null ||
    fail "train hsm --quick: exit $?"
grep -q '^c1 = .*c2 = .*R^2 = ' "$TMPD/train.txt" || fail "train output: $(cat "$TMPD/train.txt")"
# (with --out FILE: corun refuses the command without it)
grep -q 'Regenerate with: corun train hsm --gpu hbm80 --quick --out FILE' "$TMPD/m.cfg" ||
    fail "model comment: $(cat "$TMPD/m.cfg")"
# --cycles is part of how a model was made: its command says it (it was left out, and the
# command given made another model).
"$CORUN" train hsm --gpu hbm80 --quick --cycles 5000 --out "$TMPD/m5.cfg" >/dev/null 2>&1 ||
    fail "train hsm --cycles 5000: exit $?"
grep -q 'Regenerate with: corun train hsm --gpu hbm80 --quick --out FILE --cycles 5000$' \
    "$TMPD/m5.cfg" || fail "model comment of --cycles: $(cat "$TMPD/m5.cfg")"
# An --out FILE replaced is kept as FILE.prev, as the data directory's model is (it was
# overwritten without a word).
cp "$TMPD/m.cfg" "$TMPD/m1.cfg"
"$CORUN" train hsm --gpu hbm80 --quick --out "$TMPD/m.cfg" >"$TMPD/train2.txt" 2>/dev/null ||
    fail "train hsm --quick over its --out: exit $?"
grep -qx "wrote $TMPD/m.cfg (the model it replaced is kept as $TMPD/m.cfg.prev)" "$TMPD/train2.txt" &&
    cmp -s "$TMPD/m.cfg.prev" "$TMPD/m1.cfg" || fail "train --out over a file: $(cat "$TMPD/train2.txt")"
# The table's kernels are the model's points, each fit c1 x RBH + c2, and c1, c2 and R^2 are the
# least-squares line through the points as printed (to their 4 decimals).
python3 - "$TMPD/train.txt" "$TMPD/m.cfg" <<'PY' || fail "the training's table and model disagree: $(cat "$TMPD/train.txt" "$TMPD/m.cfg")"
import re, sys
text, model = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read()
n = int(re.match(r"HSM training on hbm80: (\d+) memory-bound kernels", text[0]).group(1))
c1, c2, r2 = map(float, re.search(r"^c1 = (\S+)  c2 = (\S+)  R\^2 = (\S+)$", "\n".join(text), re.M).groups())
rows = [l.split() for l in text[2:2 + n]]
assert len(rows) == n and text[2 + n].startswith("c1 = "), text
for k, rbh, util, fit in rows:
    assert abs(float(fit) - (c1 * float(rbh) + c2)) < 1e-4, (k, fit)
points = re.findall(r"^#   (\S+) +(\S+) (\S+)$", model, re.M)
assert [tuple(r[:3]) for r in rows] == points, (rows, points)
assert re.search(r"^points = %d;$" % n, model, re.M), model
x, y = [float(p[1]) for p in points], [float(p[2]) for p in points]
mx, my = sum(x) / n, sum(y) / n
sxx = sum((a - mx) ** 2 for a in x)
b1 = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sxx
b0 = my - b1 * mx
ss_res = sum((b - (b1 * a + b0)) ** 2 for a, b in zip(x, y))
ss_tot = sum((b - my) ** 2 for b in y)
assert abs(b1 - c1) < 2e-3 and abs(b0 - c2) < 2e-3 and abs((1 - ss_res / ss_tot) - r2) < 2e-3, (b1, b0, c1, c2, r2)
PY
mkdir -p "$TMPD/d/data/models"
ln -s "$top_srcdir/data/gpus" "$TMPD/d/data/gpus"
ln -s "$top_srcdir/data/kernels" "$TMPD/d/data/kernels"
cp "$TMPD/m.cfg" "$TMPD/d/data/models/hsm-hbm80.cfg"
CORUN_DATADIR="$TMPD/d" "$CORUN" run "$small" --epochs 1 --predictor hsm 2>/dev/null |
    grep -q ' NP^' || fail "run with the trained model"

# The model records its training configuration; on the 16-SM small scenario it warns once on
# stderr, naming both, JSON or not; a model file without the SM count warns that it is unknown.
grep -q '^sms = 80;' "$TMPD/m.cfg" || fail "trained model without its SM count: $(cat "$TMPD/m.cfg")"
CORUN_DATADIR="$TMPD/d" "$CORUN" run "$small" --epochs 2 --predictor hsm --json \
    --catalog "$TMPD/cat.db" >/dev/null 2>"$TMPD/warn.txt" || fail "run with the trained model: exit $?"
[ "$(grep -c 'warning: hsm model trained on hbm80 with 80 SMs, used on hbm80 with 16 SMs.*hsm-hbm80.cfg' \
    "$TMPD/warn.txt")" = 1 ] || fail "out-of-range warning, once: $(cat "$TMPD/warn.txt")"
"$CORUN" run "$top_srcdir/scenarios/default.cfg" --epochs 1 --set epoch_cycles=20000 \
    --predictor themis --catalog "$TMPD/cat.db" >/dev/null 2>"$TMPD/warn.txt" ||
    fail "themis on hbm80: exit $?"
grep -q 'warning' "$TMPD/warn.txt" && fail "themis on its own preset warns: $(cat "$TMPD/warn.txt")"
# On its preset with a setting changed (trained on the preset as it is): a warning naming the
# setting, once; the same value as the preset's is no change.
"$CORUN" run "$top_srcdir/scenarios/default.cfg" --epochs 2 --set epoch_cycles=20000 \
    --predictor themis --set gpu.dram.timing.faw=30 --set gpu.llc.latency_cycles=120 \
    --catalog "$TMPD/cat.db" >/dev/null 2>"$TMPD/warn.txt" || fail "themis on a changed hbm80: exit $?"
[ "$(grep -c 'warning: themis model trained on hbm80 as its preset gives it, used with 1 of its settings changed (gpu.dram.timing.faw 20 -> 30): predictions outside its training range (.*themis-hbm80.cfg)' \
    "$TMPD/warn.txt")" = 1 ] || fail "themis on a changed hbm80: $(cat "$TMPD/warn.txt")"
sed '/^sms = /d' "$TMPD/m.cfg" >"$TMPD/d/data/models/hsm-hbm80.cfg"
CORUN_DATADIR="$TMPD/d" "$CORUN" run "$small" --epochs 1 --predictor hsm \
    --catalog "$TMPD/cat.db" >/dev/null 2>"$TMPD/warn.txt" || fail "run with an older model: exit $?"
grep -q 'warning: hsm model: training configuration unknown (trained on hbm80, SM count not recorded), used on hbm80 with 16 SMs (.*hsm-hbm80.cfg' \
    "$TMPD/warn.txt" || fail "older model: $(cat "$TMPD/warn.txt")"

# A corrupt model: file, line, and the command that regenerates it.
sed 's/^c2 = .*/c2 = "x";/' "$TMPD/m.cfg" >"$TMPD/d/data/models/hsm-hbm80.cfg"
CORUN_DATADIR="$TMPD/d" expect_bad "corrupt model" "hsm-hbm80.cfg:[0-9]*: c2" \
    "$CORUN" run "$small" --epochs 1 --predictor hsm
grep -q 'regenerate it with `corun train hsm --gpu hbm80`' "$TMPD/err" ||
    fail "corrupt model: no regenerate command: $(cat "$TMPD/err")"
echo "predict: run --predictor, recording, catalog, bad names, train, model files and their training range"
