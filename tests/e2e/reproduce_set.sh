#!/usr/bin/env bash
# corun reproduce --set gpu.SETTING=VALUE: a GPU setting changed for every mix of an
# experiment, as `corun run --set` changes it for one scenario. Settings reproduce does not
# take (not the GPU's; gpu.sms, which --gpu's preset gives) and bad values are refused with a
# message and exit status 2 before anything runs; a run with --set says so in its title and
# JSON, gives other results than without it, is not read from results kept for a run without
# it (nor the other way), and its --resume journal is refused for a run without it.
. "$(dirname "$0")/../lib.sh"
cat=(--catalog "$TMPD/cat.db")
acc=(hsm --accuracy --quick --epochs 1 --epoch-cycles 20000 --predictors hsm --shard 1/15)

expect_bad "--set epochs" 'expected gpu.SETTING=VALUE' \
    "$CORUN" reproduce "${acc[@]}" "${cat[@]}" --set epochs=3
expect_bad "--set gpu.sms" 'the SM count is the preset.s here' \
    "$CORUN" reproduce "${acc[@]}" "${cat[@]}" --set gpu.sms=40
expect_bad "--set gpu.nosuch" 'gpu.nosuch: unknown gpu setting' \
    "$CORUN" reproduce "${acc[@]}" "${cat[@]}" --set gpu.nosuch=1 --resume "$TMPD/bad.journal"
[ ! -e "$TMPD/bad.journal" ] || fail "a refused --set left a journal behind"
# An experiment printed its title and made its catalog before refusing a --set or a --gpu;
# each is refused first now, before anything is printed or made.
for bad in "--set gpu.nosuch=1" "--set gpu.llc.latency_cycles=0" "--gpu hbm8"; do
    rm -f "$TMPD/refused.db"
    # shellcheck disable=SC2086
    if "$CORUN" reproduce "${acc[@]}" --catalog "$TMPD/refused.db" $bad >"$TMPD/refused.out" \
        2>"$TMPD/refused.err"; then
        fail "reproduce $bad: accepted"
    fi
    [ ! -s "$TMPD/refused.out" ] || fail "reproduce $bad: printed $(cat "$TMPD/refused.out")"
    [ ! -e "$TMPD/refused.db" ] || fail "reproduce $bad: made its catalog"
done
# The allocation experiments did the same.
for bad in "--set gpu.nosuch=1" "--gpu hbm8"; do
    rm -f "$TMPD/refused.db"
    # shellcheck disable=SC2086
    if "$CORUN" reproduce hsm --fairness --mixes 1 --catalog "$TMPD/refused.db" $bad \
        >"$TMPD/refused.out" 2>"$TMPD/refused.err"; then
        fail "reproduce hsm --fairness $bad: accepted"
    fi
    [ ! -s "$TMPD/refused.out" ] || fail "reproduce hsm --fairness $bad: printed $(cat "$TMPD/refused.out")"
    [ ! -e "$TMPD/refused.db" ] || fail "reproduce hsm --fairness $bad: made its catalog"
done
expect_bad "--fairness --set gpu.order_free=maybe" 'gpu.order_free: expected true or false' \
    "$CORUN" reproduce hsm --fairness --mixes 1 "${cat[@]}" --set gpu.order_free=maybe

# Accuracy: the same mix with and without the order-free rules.
"$CORUN" reproduce "${acc[@]}" "${cat[@]}" --json >"$TMPD/plain.json" 2>/dev/null ||
    fail "accuracy without --set: exit $?"
"$CORUN" reproduce "${acc[@]}" "${cat[@]}" --set gpu.order_free=true \
    --resume "$TMPD/of.journal" --json >"$TMPD/of.json" 2>/dev/null ||
    fail "accuracy with --set: exit $?"
"$CORUN" reproduce "${acc[@]}" "${cat[@]}" --set gpu.order_free=true \
    --resume "$TMPD/of.journal" >"$TMPD/of.txt" 2>/dev/null || fail "accuracy from its journal: exit $?"
grep -q '^corun reproduce hsm --accuracy --quick --set gpu.order_free=true: ' "$TMPD/of.txt" ||
    fail "title without the setting: $(head -1 "$TMPD/of.txt")"
python3 - "$TMPD/plain.json" "$TMPD/of.json" <<'PY' || fail "accuracy JSON"
import json, sys
plain, of = (json.load(open(f))["parts"][0] for f in sys.argv[1:3])
assert plain["sets"] == [] and of["sets"] == ["gpu.order_free=true"], (plain["sets"], of["sets"])
a, b = plain["per_mix"][0], of["per_mix"][0]
assert a["mix"] == b["mix"], (a["mix"], b["mix"])
# Simulated, not read from the run without the setting, and another result.
assert b["measurements_reused"] == 0, b
assert a["hsm"]["per_epoch"]["avg"] != b["hsm"]["per_epoch"]["avg"], (a, b)
PY
expect_bad "the --set run's journal without --set" 'written for another run' \
    "$CORUN" reproduce "${acc[@]}" "${cat[@]}" --resume "$TMPD/of.journal"
# The other way: another mix with the setting first, then without it, which is simulated too.
other=(hsm --accuracy --quick --epochs 1 --epoch-cycles 20000 --predictors hsm --shard 2/15)
"$CORUN" reproduce "${other[@]}" "${cat[@]}" --set gpu.order_free=true --json >/dev/null \
    2>&1 || fail "the second mix with --set: exit $?"
"$CORUN" reproduce "${other[@]}" "${cat[@]}" --json 2>/dev/null | python3 -c '
import json, sys
m = json.load(sys.stdin)["parts"][0]["per_mix"][0]
assert m["measurements_reused"] == 0, m
' || fail "a run without --set read the result kept for one with it"

# An allocation experiment: the setting reaches every policy's run.
alloc=(hsm --fairness --mixes 1 --epochs 1 --epoch-cycles 20000 --policies fair/hsm --json)
"$CORUN" reproduce "${alloc[@]}" "${cat[@]}" >"$TMPD/aplain.json" 2>/dev/null ||
    fail "fairness without --set: exit $?"
"$CORUN" reproduce "${alloc[@]}" "${cat[@]}" --set gpu.order_free=true \
    --set gpu.llc.latency_cycles=240 >"$TMPD/aof.json" 2>/dev/null || fail "fairness with --set: exit $?"
python3 - "$TMPD/aplain.json" "$TMPD/aof.json" <<'PY' || fail "fairness JSON"
import json, sys
plain, of = (json.load(open(f)) for f in sys.argv[1:3])
assert of["sets"] == ["gpu.order_free=true", "gpu.llc.latency_cycles=240"], of["sets"]
a, b = plain["per_mix"][0], of["per_mix"][0]
assert b["runs_reused"] == 0, b["runs_reused"]
for ra, rb in zip(a["runs"], b["runs"]):
    assert ra["policy"] == rb["policy"] and ra["np"] != rb["np"], (ra, rb)
PY
echo "reproduce --set: refused settings, the title, JSON, results, kept results and journal"
