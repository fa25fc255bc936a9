#!/usr/bin/env bash
# corun reproduce --gpu PRESET and the experiments added with it, each in its quickest form:
# HSM accuracy on gddr5_40 prints HSM's GDDR5 figure (6.5 %) and not Fig. 10's; an allocation
# experiment moved to another preset scales its splits and prints no figure measured elsewhere;
# hsm --quads (HSM Fig. 15, four-program mixes, allocation) and themis --quads (Themis Fig. 6,
# four-application mixes, accuracy) run and print the paper's figures beside ours; an unknown
# preset is refused with a did-you-mean and exit status 2.
. "$(dirname "$0")/../lib.sh"
cat=(--catalog "$TMPD/cat.db")

"$CORUN" reproduce --list >"$TMPD/list" || fail "--list: exit $?"
for l in '^hsm +--quads +HSM' '^themis +--quads +Themis Fig. 6' '^hsm +--accuracy .*gddr5_40'; do
    grep -Eq "$l" "$TMPD/list" || fail "--list has no $l: $(cat "$TMPD/list")"
done

# HSM §6.5, GDDR5: the pairs on the 40-SM GDDR5 GPU.
"$CORUN" reproduce hsm --accuracy --quick --epochs 1 --epoch-cycles 100000 --predictors hsm \
    --gpu gddr5_40 -j 2 "${cat[@]}" >"$TMPD/gddr5" 2>"$TMPD/err" || fail "hsm --gpu gddr5_40: exit $? $(cat "$TMPD/err")"
grep -q '^suite hsm-pairs (gpu gddr5_40): 15 of 105 mixes (--quick), 1 epoch of 100000 cycles' \
    "$TMPD/gddr5" || fail "gddr5 suite line: $(cat "$TMPD/gddr5")"
grep -q "^run on gddr5_40 instead of the suite's hbm80" "$TMPD/gddr5" ||
    fail "gddr5: no --gpu note: $(cat "$TMPD/gddr5")"
grep -Eq '^hsm +all +15 +[0-9.]+% +[0-9.]+% +[0-9.]+% +[0-9.]+% +\| +6\.5% +- +HSM §6\.5 GDDR5$' \
    "$TMPD/gddr5" || fail "gddr5: HSM's row beside 6.5 %: $(cat "$TMPD/gddr5")"
grep -q 'HSM Fig. 10$' "$TMPD/gddr5" && fail "gddr5: Fig. 10's hbm80 figure printed: $(cat "$TMPD/gddr5")"

# The same experiment on its own preset: Fig. 10's figure, not GDDR5's (one mix is enough).
hbm=(hsm --accuracy --quick --epochs 1 --predictors hsm --gpu hbm80 --shard 1/15
     --resume "$TMPD/hbm.journal")
"$CORUN" reproduce "${hbm[@]}" "${cat[@]}" --json >"$TMPD/hbm.json" 2>/dev/null ||
    fail "hsm --gpu hbm80: exit $?"
python3 - "$TMPD/hbm.json" <<'PY' || fail "hsm --gpu hbm80 JSON: $(head -c 2000 "$TMPD/hbm.json")"
import json, sys
part = json.load(open(sys.argv[1]))["parts"][0]
assert part["gpu"] == "hbm80" and part["suite_gpu"] == "hbm80", part["gpu"]
assert part["mixes"] == 1, part["mixes"]
pub = part["predictors"][0]["published"]
assert pub["source"] == "HSM Fig. 10" and abs(pub["avg"] - 0.068) < 1e-9, pub
PY
# Reprinted from the journal as text: the published figures of the predictors left out of the
# run say so (they were "not registered in this build", though they are).
"$CORUN" reproduce "${hbm[@]}" "${cat[@]}" >"$TMPD/hbm.txt" 2>/dev/null ||
    fail "hsm --gpu hbm80 from its journal: exit $?"
for p in dase themis; do
    grep -Eq "^$p +not in this run \(add it with --predictors\) +\|" "$TMPD/hbm.txt" ||
        fail "hbm80: $p's published figure: $(cat "$TMPD/hbm.txt")"
done
grep -q 'not registered' "$TMPD/hbm.txt" && fail "hbm80: 'not registered': $(cat "$TMPD/hbm.txt")"

# An allocation experiment moved to hbm80: Themis' 30:30 pairs run 40:40, no Themis figure.
"$CORUN" reproduce themis --fairness --quick --mixes 2 --epochs 1 --epoch-cycles 50000 \
    --gpu hbm80 -j 2 "${cat[@]}" >"$TMPD/tf" 2>"$TMPD/err" ||
    fail "themis --fairness --gpu hbm80: exit $? $(cat "$TMPD/err")"
grep -q '^suite themis-pairs (gpu hbm80): 2 of 49 mixes' "$TMPD/tf" || fail "tf: $(cat "$TMPD/tf")"
grep -q "^run on hbm80 instead of the suite's themis60" "$TMPD/tf" || fail "tf: $(cat "$TMPD/tf")"
grep -q 'Themis §VII-C' "$TMPD/tf" && fail "tf: a themis60 figure beside an hbm80 run: $(cat "$TMPD/tf")"
"$CORUN" reproduce themis --fairness --quick --mixes 2 --epochs 1 --epoch-cycles 50000 \
    --gpu hbm80 "${cat[@]}" --json 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
runs = [run for m in r["per_mix"] for run in m["runs"]]
sms = {run["policy"]: tuple(run["sms"]) for run in runs}
assert r["gpu"] == "hbm80" and r["suite_gpu"] == "themis60", r["gpu"]
assert r["published"] == [], r["published"]
assert sms["hp<.5,.5>"] == (40, 40) and sms["hp<.2,.8>"] == (16, 64), sms
' || fail "themis --fairness --gpu hbm80 JSON"

# HSM §6.5 (Fig. 15): four-program mixes, even against Fair.
"$CORUN" reproduce hsm --quads --quick --mixes 2 --epochs 2 --epoch-cycles 50000 -j 2 \
    "${cat[@]}" >"$TMPD/hq" 2>"$TMPD/err" || fail "hsm --quads: exit $? $(cat "$TMPD/err")"
grep -q '^suite hsm-quads (gpu hbm80): 2 of 20 mixes x 4 policies, 2 epochs of 50000 cycles' \
    "$TMPD/hq" || fail "hsm --quads suite line: $(cat "$TMPD/hq")"
for p in even fair/hsm fair/dase fair/themis; do
    grep -Eq "^$p +all +2 +[0-9.]+% +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$TMPD/hq" ||
        fail "hsm --quads: no $p row: $(cat "$TMPD/hq")"
done
grep -Eq '^fair/hsm +even +all +fairness +\+120\.0% +[-+][0-9.]+% +HSM §6\.5, Fig\. 15' "$TMPD/hq" ||
    fail "hsm --quads: the 2.2x figure: $(cat "$TMPD/hq")"

# Themis Fig. 6, four applications: the accuracy experiment on its own suite.
"$CORUN" reproduce themis --quads --quick --epochs 1 --epoch-cycles 100000 --predictors themis \
    -j 2 "${cat[@]}" >"$TMPD/tq" 2>"$TMPD/err" || fail "themis --quads: exit $? $(cat "$TMPD/err")"
grep -q '^corun reproduce themis --quads --quick: Themis Fig. 6' "$TMPD/tq" || fail "tq: $(cat "$TMPD/tq")"
grep -q '^suite themis-quads (gpu themis60): 6 of 150 mixes (--quick), 1 epoch' "$TMPD/tq" ||
    fail "themis --quads suite line: $(cat "$TMPD/tq")"
grep -Eq '^themis +all +6 +[0-9.]+% .*\| +10\.0% +- +8\.0% +Themis Fig\. 6$' "$TMPD/tq" ||
    fail "themis --quads: row beside 10 % / 8 %: $(cat "$TMPD/tq")"

# Bad presets and flags: refused, status 2, nothing run.
expect_bad() { # WHAT PATTERN CMD...
    local what=$1 pattern=$2 rc=0
    shift 2
    "$@" >/dev/null 2>"$TMPD/err" || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit $rc, expected 2"
    grep -Eq -- "$pattern" "$TMPD/err" || fail "$what: $(cat "$TMPD/err")"
}
expect_bad "accuracy --gpu hbm8" '--gpu: unknown GPU preset "hbm8".*did you mean hbm80' \
    "$CORUN" reproduce hsm --accuracy --quick --gpu hbm8 "${cat[@]}"
expect_bad "alloc --gpu hbm8" '--gpu: unknown GPU preset "hbm8".*did you mean hbm80' \
    "$CORUN" reproduce hsm --quads --quick --gpu hbm8 "${cat[@]}"
expect_bad "smqos --quads" 'smqos' "$CORUN" reproduce smqos --quads --quick "${cat[@]}"
echo "reproduce --gpu: gddr5_40 beside HSM's GDDR5 figure, scaled splits; hsm and themis --quads"
