#!/usr/bin/env bash
# corun reproduce: the quick HSM accuracy experiment prints one table — every registered
# predictor but the oracle, overall and per category, errors as percentages in range, the
# published HSM Fig. 10 figures beside ours — and the same numbers as JSON; bad usage is
# refused with a message and exit status 2.
. "$(dirname "$0")/../lib.sh"

"$CORUN" reproduce --list >"$TMPD/list" || fail "--list: exit $?"
grep -q '^hsm .*--accuracy' "$TMPD/list" && grep -q '^themis .*--accuracy' "$TMPD/list" \
    || fail "--list: $(cat "$TMPD/list")"

# --fresh: every mix simulated here, whatever the suite's shared catalog keeps from other tests.
# --epochs 2 --epoch-cycles 100000 (the quick form has 3 of 500000; `help reproduce` says so,
# checked below) keep the suite's time down: the table's shape does not depend on them.
"$CORUN" help reproduce >"$TMPD/help" || fail "help reproduce: exit $?"
grep -q -- '--quick.*3 epochs' "$TMPD/help" || fail "help: no quick form: $(cat "$TMPD/help")"
acc=(hsm --accuracy --quick --epochs 2 --epoch-cycles 100000 -j 2 --resume "$TMPD/acc.journal" --fresh)
"$CORUN" reproduce "${acc[@]}" >"$TMPD/out" 2>"$TMPD/err" \
    || fail "reproduce hsm --accuracy --quick -j 2: exit $? $(cat "$TMPD/err")"
python3 - "$TMPD/out" <<'PY' || fail "table: $(cat "$TMPD/out")"
import re, sys
text = open(sys.argv[1]).read()
assert "HSM Fig. 10:" in text, "no figure title"
assert re.search(r"suite hsm-pairs \(gpu hbm80\): 15 of 105 mixes \(--quick\), 2 epochs of 100000 cycles, seed 1; 0 failed", text), "no suite line"
lines = text.splitlines()
head = [i for i, l in enumerate(lines) if l.split()[:3] == ["predictor", "group", "mixes"]]
assert len(head) == 1, "no column header"
rows = lines[head[0] + 1:]
pct = r"\s+(-?\d+\.\d)%"
# hsm: the overall row with the published figures, then one row per category.
hsm = [l for l in rows if l.startswith("hsm ")]
assert len(hsm) == 1, "no hsm row"
m = re.match(r"hsm\s+all\s+15" + pct * 4 + r"\s+\|\s+6\.8%\s+30\.3%\s+HSM Fig\. 10$", hsm[0])
assert m, "hsm row: " + hsm[0]
i = rows.index(hsm[0])
cats = {}
for l in rows[i + 1:i + 4]:
    c = re.match(r"\s+(\S+)\s+(\d+)" + pct * 4 + "$", l)
    assert c, "category row: " + l
    cats[c.group(1)] = int(c.group(2))
    vals = [float(v) for v in c.groups()[2:]]
    assert all(0 <= v <= 1000 for v in vals), l
    assert vals[0] <= vals[1] and vals[2] <= vals[3], "avg above max: " + l
assert cats == {"heterogeneous": 5, "memory-homogeneous": 5, "compute-homogeneous": 5}, cats
vals = [float(v) for v in m.groups()]
assert all(0 <= v <= 1000 for v in vals) and vals[0] <= vals[1] and vals[2] <= vals[3], vals
# The oracle is the truth, never a row; every published predictor has one (ours or not).
assert not any(l.startswith("oracle") for l in rows), "oracle listed"
for name in ("dase", "themis"):
    row = [l for l in rows if l.startswith(name + " ")]
    assert row, "no row for " + name
    assert "HSM Fig. 10" in row[0], row[0]
PY

# JSON: the same run for machines, read back from its journal (nothing simulated again).
"$CORUN" reproduce "${acc[@]}" --json >"$TMPD/j" 2>/dev/null || fail "--json: exit $?"
python3 - "$TMPD/j" <<'PY' || fail "JSON: $(head -c 2000 "$TMPD/j")"
import json, sys
r = json.load(open(sys.argv[1]))
p = r["parts"][0]
assert p["figure"] == "HSM Fig. 10" and p["mixes"] == 15 and p["epochs"] == 2 and p["failed"] == 0
assert p["epoch_cycles"] == 100000, p["epoch_cycles"]
assert p["resumed"] == 15, p["resumed"]
names = [x["name"] for x in p["predictors"]]
assert "hsm" in names and "dase" in names and "themis" in names and "oracle" not in names, names
hsm = p["predictors"][names.index("hsm")]
assert hsm["published"]["avg"] == 0.068 and hsm["published"]["max"] == 0.303
g = {x["group"]: x for x in hsm["groups"]}
assert g["all"]["mixes"] == 15 and g["all"]["per_epoch"]["n"] == 60, g["all"]
assert sum(g[c]["per_epoch"]["n"] for c in ("heterogeneous", "memory-homogeneous", "compute-homogeneous")) == 60
assert 0 <= g["all"]["per_epoch"]["avg"] <= g["all"]["per_epoch"]["max"] < 10
assert len(p["per_mix"]) == 15 and all(m["error"] is None for m in p["per_mix"])
# Each kernel-epoch is either one where the model extrapolated or one where it did not; HSM
# has no training range, so it never extrapolates.
for x in p["predictors"]:
    for grp in x["groups"]:
        far, near = grp["per_epoch_extrapolated"]["n"], grp["per_epoch_in_range"]["n"]
        assert far + near == grp["per_epoch"]["n"], (x["name"], grp)
assert all(grp["per_epoch_extrapolated"]["n"] == 0 for grp in hsm["groups"])
# ASM changes the run it measures, so each mix had two runs: the shared one and ASM's own.
assert "asm" in names and all(m["simulations"] == 2 for m in p["per_mix"]), p["per_mix"][0]
PY
# The text tables say what the JSON says: in each part, every predictor's row and its
# category and split rows, their mixes and their errors (per epoch and over the run: avg, max,
# and the median where the paper gives one) to the printed 0.1 %, and the table of where a
# model extrapolated (its kernel-epochs, the share far outside its training range, and the
# error there and elsewhere).
cat >"$TMPD/xcheck.py" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
parts = json.load(open(sys.argv[2]))["parts"]
heads = [i for i, l in enumerate(lines) if l.split()[:3] == ["predictor", "group", "mixes"]]
assert len(heads) == len(parts), (len(heads), len(parts))
def close(text, value):
    return (text == "-" and value is None) or \
        (text != "-" and value is not None and abs(float(text[:-1]) - 100 * value) <= 0.05 + 1e-3)
for at, p in zip(heads, parts):
    nvals = 6 if "median" in lines[at] else 4
    end = heads[heads.index(at) + 1] if at != heads[-1] else len(lines)
    rows, far, name, infar = {}, {}, None, False
    for l in lines[at + 1:end]:
        m = re.match(r"(\S*)\s+(\S+)\s+(\d+)((?:\s+(?:-?\d+\.\d%|-)){" + str(nvals) + r"})(\s|$)", l)
        if "kernel-epochs" in l:
            infar = True
            continue
        if infar:
            f = re.match(r"\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)$", l)
            if f:
                far[(name, f.group(1))] = f.groups()[1:]
                continue
            infar = False
        if m:
            name = m.group(1) or name
            rows[(name, m.group(2))] = (int(m.group(3)), m.group(4).split())
    seen = 0
    for x in p["predictors"]:
        if x["unavailable"]:
            continue
        for g in x["groups"]:
            key = (x["name"], g["group"])
            assert key in rows, ("no text row", p["figure"], key)
            mixes, vals = rows[key]
            assert mixes == g["mixes"], (key, mixes, g["mixes"])
            want = [g[k][s] for k in ("per_epoch", "per_run")
                    for s in (("avg", "max", "median") if nvals == 6 else ("avg", "max"))]
            assert all(close(v, w) for v, w in zip(vals, want)), (key, vals, want)
            seen += 1
            out, inr = g["per_epoch_extrapolated"], g["per_epoch_in_range"]
            if key in far:
                n, share, err_far, err_else = far[key]
                assert int(n) == out["n"] + inr["n"] == g["per_epoch"]["n"], (key, n)
                assert close(share, out["n"] / int(n)), (key, share)
                assert close(err_far, out["avg"]) and close(err_else, inr["avg"]), (key, far[key])
            else:
                assert out["n"] == 0, ("no extrapolation row", key)
    assert seen == len(rows), (p["figure"], seen, len(rows))
    print(p["figure"], seen, "rows,", len(far), "extrapolation rows")
PY
python3 "$TMPD/xcheck.py" "$TMPD/out" "$TMPD/j" >"$TMPD/xcheck" || fail "text against JSON: $(cat "$TMPD/out")"
grep -Eq "^HSM Fig. 10 16 rows, [0-9]+ extrapolation rows$" "$TMPD/xcheck" || fail "xcheck: $(cat "$TMPD/xcheck")"
# Themis' two parts: the pairs by category and by split, the triples with medians, and the
# table of where its model extrapolated (one epoch of 100 K cycles: the shape, not the figure).
th=(themis --accuracy --quick --epochs 1 --epoch-cycles 100000 --predictors themis -j 2
    --resume "$TMPD/th.journal" --fresh)
"$CORUN" reproduce "${th[@]}" >"$TMPD/th" 2>"$TMPD/err" || fail "themis --accuracy: exit $? $(cat "$TMPD/err")"
"$CORUN" reproduce "${th[@]}" --json >"$TMPD/th.json" 2>"$TMPD/err" || fail "themis --json: exit $?"
python3 "$TMPD/xcheck.py" "$TMPD/th" "$TMPD/th.json" >"$TMPD/xcheck" ||
    fail "themis: text against JSON: $(cat "$TMPD/th")"
grep -Eq "^Themis Fig. 5 13 rows, 13 extrapolation rows$" "$TMPD/xcheck" &&
    grep -Eq "^Themis Fig. 6 [0-9]+ rows, [0-9]+ extrapolation rows$" "$TMPD/xcheck" ||
    fail "themis xcheck: $(cat "$TMPD/xcheck") $(cat "$TMPD/th")"
python3 - "$TMPD/out" "$TMPD/j" <<'PY' || fail "suite line and per mix: $(cat "$TMPD/out")"
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
p = json.load(open(sys.argv[2]))["parts"][0]
# The suite line's seconds per mix are the mean of the mixes' own (as their journal records
# them), with the workers -j asked for; ASM's note says it had its own runs.
assert p["error"] == "np" and p["jobs"] == 2, (p["error"], p["jobs"])
suite = [l for l in lines if l.startswith("suite hsm-pairs")][0]
per_mix = sum(m["seconds"] for m in p["per_mix"]) / len(p["per_mix"])
# (the JSON's seconds are rounded to 0.1 s, the text's mean is of the unrounded ones)
got = re.search(r", ([\d.]+) s per mix, 2 workers$", suite)
assert got and abs(float(got.group(1)) - per_mix) <= 0.1 + 1e-9, (suite, per_mix)
assert "asm: measured on its own run of each mix, against that run's NP: its priority epochs change the memory schedule." in lines
# Each mix's own errors add up to the table's: every predictor's kernel-epochs, their largest
# error and their mean, and the same over the run.
for x in p["predictors"]:
    whole = x["groups"][0]
    assert whole["group"] == "all"
    for k in ("per_epoch", "per_run"):
        mine = [m[x["name"]][k] for m in p["per_mix"]]
        n = sum(s["n"] for s in mine)
        assert n == whole[k]["n"], (x["name"], k, n, whole[k]["n"])
        assert abs(max(s["max"] for s in mine) - whole[k]["max"]) < 1e-6, (x["name"], k)
        mean = sum(s["n"] * s["avg"] for s in mine) / n
        assert abs(mean - whole[k]["avg"]) < 1e-4, (x["name"], k, mean, whole[k]["avg"])
PY
# With ASM alone there is no shared run to simulate: one run per mix, and ASM measured on it.
one=(hsm --accuracy --quick --epochs 1 --epoch-cycles 100000 --shard 1/15 --catalog "$TMPD/cat.db" --json)
"$CORUN" reproduce "${one[@]}" --predictors asm >"$TMPD/asm" 2>/dev/null ||
    fail "--predictors asm: exit $?"
python3 - "$TMPD/asm" <<'PY' || fail "--predictors asm: $(head -c 2000 "$TMPD/asm")"
import json, sys
p = json.load(open(sys.argv[1]))["parts"][0]
assert [m["simulations"] for m in p["per_mix"]] == [1], p["per_mix"]
g = {x["group"]: x for x in p["predictors"][0]["groups"]}
assert p["predictors"][0]["name"] == "asm" and g["all"]["per_epoch"]["n"] == 2, g["all"]
PY
# A predictor measured before is read from the catalog: adding HSM to ASM's table simulates
# only the shared run, ASM's numbers are those of its own run above, and asking for ASM alone
# again simulates nothing. --fresh measures it again, to the same numbers.
"$CORUN" reproduce "${one[@]}" --predictors hsm,asm >"$TMPD/both" 2>/dev/null || fail "hsm,asm: exit $?"
"$CORUN" reproduce "${one[@]}" --predictors asm >"$TMPD/again" 2>/dev/null || fail "asm again: exit $?"
"$CORUN" reproduce "${one[@]}" --predictors asm --fresh >"$TMPD/fresh" 2>/dev/null ||
    fail "asm --fresh: exit $?"
python3 - "$TMPD/asm" "$TMPD/both" "$TMPD/again" "$TMPD/fresh" <<'PY' || fail "reuse: $(head -c 3000 "$TMPD/both")"
import json, sys
asm, both, again, fresh = (json.load(open(f))["parts"][0] for f in sys.argv[1:])
def runs(p): return [(m["simulations"], m["measurements_reused"]) for m in p["per_mix"]]
assert runs(asm) == [(1, 0)] and runs(both) == [(1, 1)], (runs(asm), runs(both))
assert runs(again) == [(0, 1)] and runs(fresh) == [(1, 0)], (runs(again), runs(fresh))
def of(p, name): return [x for x in p["predictors"] if x["name"] == name][0]["groups"]
assert of(both, "asm") == of(asm, "asm") == of(again, "asm") == of(fresh, "asm")
assert of(both, "hsm")[0]["per_epoch"]["n"] == 2
PY

set +e
"$CORUN" reproduce hsn --accuracy 2>"$TMPD/e1"; rc1=$?
"$CORUN" reproduce hsm --accuracy --quick -j 0 2>"$TMPD/e2"; rc2=$?
"$CORUN" reproduce hsm --quick 2>"$TMPD/e3"; rc3=$?
"$CORUN" reproduce hsm --accuracy --quick -j two 2>"$TMPD/e4"; rc4=$?
"$CORUN" reproduce hsm --accuracy --predictors oracle 2>"$TMPD/e5"; rc5=$?
"$CORUN" reproduce hsm --accuracy --epoch-cycles 999 2>"$TMPD/e6"; rc6=$?
"$CORUN" reproduce hsm --accuracy --predictors hsm,dsae 2>"$TMPD/e12"; rc12=$?
# A list of commas names no predictor (it once ran the whole table with none); a flag the
# experiment lacks; merge's own mistakes.
"$CORUN" reproduce hsm --accuracy --quick --shard 1/15 --epochs 1 --epoch-cycles 1000 --catalog "$TMPD/e7.db" \
    --predictors , >/dev/null 2>"$TMPD/e7"; rc7=$?
"$CORUN" reproduce themis --threshold 2>"$TMPD/e8"; rc8=$?
: >"$TMPD/into.journal"
"$CORUN" reproduce merge "$TMPD/into.journal" 2>"$TMPD/e9"; rc9=$?
"$CORUN" reproduce merge "$TMPD/into.journal" "$TMPD/into.journal" 2>"$TMPD/e10"; rc10=$?
"$CORUN" reproduce merge "$TMPD/into.journal" --force 2>"$TMPD/e11"; rc11=$?
set -e
[ $rc7 -eq 2 ] && [ "$(cat "$TMPD/e7")" = "corun: --predictors: expected names separated by commas" ] ||
    fail "--predictors ,: $rc7 $(cat "$TMPD/e7")"
[ $rc8 -eq 2 ] && grep -q "^corun: reproduce themis: no such experiment for it, it takes: --fairness or --qos;" "$TMPD/e8" ||
    fail "themis --threshold: $rc8 $(cat "$TMPD/e8")"
[ $rc9 -eq 2 ] && grep -q "^corun: reproduce merge: expected FILE and at least one JOURNAL" "$TMPD/e9" ||
    fail "merge FILE alone: $rc9 $(cat "$TMPD/e9")"
[ $rc10 -eq 2 ] && [ "$(cat "$TMPD/e10")" = "corun: reproduce merge: $TMPD/into.journal is FILE itself" ] ||
    fail "merge into itself: $rc10 $(cat "$TMPD/e10")"
[ $rc11 -eq 2 ] && grep -q "^corun: reproduce merge: unknown option '--force' (it takes --adopt, first," "$TMPD/e11" ||
    fail "merge --force: $rc11 $(cat "$TMPD/e11")"
[ $rc1 -eq 2 ] && grep -q "unknown experiment 'hsn' (did you mean 'hsm'?)" "$TMPD/e1" \
    || fail "unknown experiment: $rc1 $(cat "$TMPD/e1")"
[ $rc2 -eq 2 ] && grep -q -- "-j: expected a whole number from 1 to 64, got '0'" "$TMPD/e2" \
    || fail "-j 0: $rc2 $(cat "$TMPD/e2")"
[ $rc3 -eq 2 ] && grep -q -- "--accuracy" "$TMPD/e3" || fail "no experiment kind: $rc3 $(cat "$TMPD/e3")"
[ $rc4 -eq 2 ] && grep -q -- "got 'two'" "$TMPD/e4" || fail "-j two: $rc4 $(cat "$TMPD/e4")"
[ $rc5 -eq 2 ] && grep -q -- "leave out 'oracle'" "$TMPD/e5" || fail "--predictors oracle: $rc5 $(cat "$TMPD/e5")"
[ $rc12 -eq 2 ] && [ "$(cat "$TMPD/e12")" = "corun: --predictors: unknown predictor 'dsae' (did you mean 'dase'?); the predictors: hsm, dase, asm, themis" ] ||
    fail "--predictors hsm,dsae: $rc12 $(cat "$TMPD/e12")"
[ $rc6 -eq 2 ] && grep -q -- "--epoch-cycles: expected a whole number from 1000" "$TMPD/e6" ||
    fail "--epoch-cycles 999: $rc6 $(cat "$TMPD/e6")"
echo "reproduce: quick HSM table, JSON and bad usage ok"
