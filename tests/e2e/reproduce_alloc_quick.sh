#!/usr/bin/env bash
# corun reproduce, SM-allocation experiments: the quickest form of each (2 mixes, 1 epoch of
# 50 K cycles; 2 epochs for hsm --threshold, whose allocator first acts at the first epoch
# boundary) prints its reduction, one row per policy and category with metrics in range, and
# the published figures beside ours, and a progress line per mix on a stderr that is not a
# terminal; --json holds the same numbers and each run's per kernel; results do not depend on
# -j; bad usage is refused with a message and exit status 2.
. "$(dirname "$0")/../lib.sh"

"$CORUN" reproduce --list >"$TMPD/list" || fail "--list: exit $?"
for l in '^hsm +--fairness' '^hsm +--qos' '^hsm +--threshold' '^smqos ' '^smqos +--triples' \
    '^smqos +--offline' '^smqos +--threshold' '^themis +--fairness' '^themis +--qos'; do
    grep -Eq "$l" "$TMPD/list" || fail "--list has no $l: $(cat "$TMPD/list")"
done

# --fresh: every run simulated, so the comparisons below (--policies rows against the whole
# run's, -j 1 against -j 2) compare two simulations, not a simulation with its stored copy.
tiny=(--quick --mixes 2 --epochs 1 --epoch-cycles 50000 --catalog "$TMPD/cat.db" --fresh)
epochs=1 # per run: check's expectation
check() { # NAME FLAG SUITE-MIXES POLICIES PUBLISHED-TEXT
    local out="$TMPD/$1$2"
    python3 - "$out" "$3" "$4" "$5" "$epochs" <<'PY' || fail "$1 $2: $(cat "$out")"
import re, sys
text = open(sys.argv[1]).read()
suite_mixes, npol, published = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
epochs = int(sys.argv[5])
assert re.search(r": 2 of %d mixes x %d policies, %d epochs? of 50000 cycles, seed 1; 0 failed"
                 % (suite_mixes, npol, epochs), text), "suite line"
red = re.search(r"^REDUCED \(--quick\): 2 of %d mixes, %d x 50000 cycles per run instead of "
                r"the paper-sized (\d+) x (\d+) \(([\d.]+)%% of the simulated cycles\); the full "
                r"run takes about [\d.]+ h of one core$" % (suite_mixes, epochs), text, re.M)
assert red, "no reduction line"
share = 100.0 * 2 * epochs * 50000 / (suite_mixes * int(red.group(1)) * int(red.group(2)))
assert red.group(3) == "%.1f" % share, ("reduction share", red.group(0), share)
assert re.search(r"^suite .* s per mix, 2 workers$", text, re.M), "suite line: workers"
lines = text.splitlines()
head = [i for i, l in enumerate(lines) if l.split()[:3] == ["policy", "group", "mixes"]]
assert len(head) == 1, "no column header"
names = lines[head[0]].split()[3:]
ncols = len(names)
rows, alls = lines[head[0] + 1:], 0
for l in rows:
    if not l.strip():
        break
    f = l.split()
    if f[0] != "all" and f[1] == "all":
        alls += 1
        f = f[1:]
    vals = f[2:]
    assert len(vals) == ncols and int(f[1]) <= 2, "row: " + l
    for name, v in zip(names, vals):
        if v == "-":
            continue
        if v.endswith("%"):
            assert 0 <= float(v[:-1]) <= 100, "share out of range: " + l
        elif name == "moved":  # SMs moved over the run: 0 in a run of one epoch
            assert 0 <= float(v) <= 80 * epochs, "SMs moved out of range: " + l
        else:
            assert 0 < float(v) < 100, "value out of range: " + l
assert alls == npol, "%d policy rows, expected %d" % (alls, npol)
assert "published beside ours" in text and published in text, "no published figure " + published
PY
}

run() { # NAME FLAG ("" for none) [MORE OPTIONS...]
    local name=$1 flag=$2
    shift 2
    "$CORUN" reproduce $name $flag "${tiny[@]}" "$@" -j 2 >"$TMPD/$name$flag" 2>"$TMPD/err" \
        || fail "reproduce $name $flag: exit $? $(cat "$TMPD/err")"
}

run hsm --fairness
check hsm --fairness 105 5 "84.1%"
# stderr is not a terminal here: a line per finished mix, the last one without an ETA.
grep -Eq '^hsm-pairs\.cfg: 1 of 2 mixes done, [0-9]+m[0-9]{2}s, ETA [0-9]+m[0-9]{2}s$' "$TMPD/err" &&
    grep -Eq '^hsm-pairs\.cfg: 2 of 2 mixes done, [0-9]+m[0-9]{2}s$' "$TMPD/err" ||
    fail "reproduce hsm --fairness: no progress lines on stderr: $(cat "$TMPD/err")"
run hsm --qos --resume "$TMPD/qos.journal"
check hsm --qos 105 4 "+18.9%"
# --json from the same journal: nothing simulated again, the table's numbers, and per mix and
# policy each kernel's NP and SMs, whose means are the table's.
"$CORUN" reproduce hsm --qos "${tiny[@]}" -j 2 --resume "$TMPD/qos.journal" --json \
    >"$TMPD/qos.json" 2>"$TMPD/err" || fail "hsm --qos --json: exit $? $(cat "$TMPD/err")"
python3 - "$TMPD/qos.json" "$TMPD/hsm--qos" <<'PY' || fail "hsm --qos --json: $(cat "$TMPD/qos.json")"
import json, re, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert (doc["experiment"], doc["flag"], doc["kind"]) == ("hsm", "qos", "allocation"), "head"
assert doc["mixes"] == 2 and doc["resumed"] == 2 and doc["failed"] == 0, "counts"
assert doc["table_metrics"] == ["met", "hp_np_over_target", "stp", "batch_np", "hp_sms"]
labels = [p["label"] for p in doc["policies"]]
assert labels == ["proportional", "qos/hsm", "qos/dase", "qos/themis"], labels
for p in doc["policies"]:
    g = p["groups"][0]
    assert g["group"] == "all" and g["mixes"] == 2, g
    row = re.search(r"^%s +all +2 +([\d.]+)%% +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$"
                    % re.escape(p["label"]), text, re.M)
    assert row, "no table row for " + p["label"]
    v = g["values"]
    assert "%.1f" % (100 * v["met"]) == row.group(1), (p["label"], "met")
    assert "%.3f" % v["stp"] == row.group(3), (p["label"], "stp")
    assert "%.1f" % v["hp_sms"] == row.group(5), (p["label"], "hpSMs")
for m in doc["per_mix"]:
    assert m["error"] is None and len(m["runs"]) == 4, m["mix"]
    hp = m["high_priority"]
    for r in m["runs"]:
        assert len(r["np"]) == 2 and len(r["sms"]) == 2, r
        assert 70 < sum(r["sms"]) <= 80 + 1e-3, ("more SMs than the GPU has", r)
        assert abs(sum(r["np"]) - r["values"]["stp"]) < 1e-5, r  # 6 digits each
        assert abs(r["sms"][hp] - r["values"]["hp_sms"]) < 1e-9, r
        assert "unfairness_median" not in r["values"], "a median of one run"
for i, p in enumerate(doc["policies"]):
    mean = sum(m["runs"][i]["values"]["stp"] for m in doc["per_mix"]) / 2
    assert abs(mean - p["groups"][0]["values"]["stp"]) < 1e-5, (p["label"], "mean STP")
# Each run's fairness and ANTT from its kernels' NP (6 digits each).
for m in doc["per_mix"]:
    for r in m["runs"]:
        np_ = r["np"]
        assert abs(r["values"]["fairness"] - min(np_) / max(np_)) < 2e-5, r
        assert abs(r["values"]["antt"] - sum(1 / x for x in np_) / len(np_)) < 1e-4, r
# The published figures: the text's rows, in order, are the JSON's.
lines = text.splitlines()
at = [i for i, l in enumerate(lines) if l.startswith("published beside ours")][0] + 2
pub = doc["published"]
assert len(pub) == 7, len(pub)
for f, l in zip(pub, lines[at:at + len(pub)]):
    rel = f["vs"] is not None
    fmt = (lambda v: "%+.1f%%" % (100 * v)) if rel else (lambda v: "%.1f%%" % (100 * v))
    want = [f["policy"], f["vs"] or "-", f["group"], {"met": "met", "stp": "STP"}[f["metric"]],
            fmt(f["paper"]), fmt(f["ours"])]
    assert l.split()[:6] == want, (l, want)
    assert l.endswith("%s: %s" % (f["source"], f["what"])), l
PY
run smqos ""
check smqos "" 132 9 "88.6%"
! grep -q "^not run:.*5\.5" "$TMPD/smqos" || fail "smqos: §5.5 still listed as not run"
# HSM §6.5 gives a statement, no number: the paper's column shows "-", ours the change vs even.
run hsm --threshold --epochs 2
epochs=2 check hsm --threshold 105 7 "yielding stable STP"
grep -Eq '^fair/hsm@0\.90 +even +all +fairness +- +[+-][0-9.]+%  HSM §6\.5: ' \
    "$TMPD/hsm--threshold" || fail "hsm --threshold: no §6.5 row: $(cat "$TMPD/hsm--threshold")"
! grep -q "^not run:.*6\.5" "$TMPD/hsm--fairness" || fail "hsm --fairness: §6.5 still not run"
# SMs moved: none under the even split, some under HSM-Fair at a threshold of 0.95 once it has
# had an epoch boundary to act at (not in both mixes necessarily: the mean is above 0).
grep -Eq '^even +all +2 +[0-9.]+% +[0-9.]+ +[0-9.]+ +0\.0$' "$TMPD/hsm--threshold" ||
    fail "hsm --threshold: even moved SMs: $(cat "$TMPD/hsm--threshold")"
grep -Eq '^fair/hsm@0\.95 +all +2 +[0-9.]+% +[0-9.]+ +[0-9.]+ +([1-9][0-9.]*|0\.[1-9])$' \
    "$TMPD/hsm--threshold" || fail "hsm --threshold: HSM-Fair moved no SMs"
# --policies: only the columns asked for (and the baseline, even), each row the same as in the
# run of every policy above, since every (mix, policy) is its own run.
mv "$TMPD/hsm--threshold" "$TMPD/whole"
run hsm --threshold --epochs 2 --policies fair/hsm@0.90
grep -q "^corun reproduce hsm --threshold --quick --policies even,fair/hsm@0.90: " \
    "$TMPD/hsm--threshold" || fail "--policies: no header: $(cat "$TMPD/hsm--threshold")"
grep -q "^POLICIES: only even,fair/hsm@0.90 " "$TMPD/hsm--threshold" ||
    fail "--policies: not said: $(cat "$TMPD/hsm--threshold")"
rows() { sed -n '/^policy  *group/,/^$/p' "$1" | awk '$1 ~ /^(even|fair\/hsm@0\.90)$/ {p = 1}
    $1 ~ /^fair\/hsm@0\.(7|8|95)/ {p = 0} p && NF'; }
[ "$(rows "$TMPD/hsm--threshold" | grep -c '^[ef]')" = 2 ] ||
    fail "--policies: other rows: $(cat "$TMPD/hsm--threshold")"
diff <(rows "$TMPD/hsm--threshold") <(rows "$TMPD/whole") >"$TMPD/diff" ||
    fail "--policies: rows differ from the whole run's: $(cat "$TMPD/diff")"
[ "$(rows "$TMPD/whole" | wc -l)" -ge 4 ] || fail "--policies: no rows: $(cat "$TMPD/whole")"
# HSM-Fair's default fairness threshold is 0.90, so hsm --fairness's fair/hsm is the same run
# as hsm --threshold's fair/hsm@0.90 (docs/results.md takes §6.5's headline from it).
mv "$TMPD/hsm--fairness" "$TMPD/fairness-all"
run hsm --fairness --epochs 2 --policies fair/hsm
mv "$TMPD/hsm--fairness" "$TMPD/fairness-hsm" && mv "$TMPD/fairness-all" "$TMPD/hsm--fairness"
diff <(rows "$TMPD/whole" | sed 's/^fair\/hsm@0\.90 /fair\/hsm      /') \
    <(sed -n '/^policy  *group/,/^$/p' "$TMPD/fairness-hsm" | awk 'NF && $1 != "policy"') \
    >"$TMPD/diff" || fail "fair/hsm and fair/hsm@0.90 differ: $(cat "$TMPD/diff")"
run smqos --triples
check smqos --triples 60 9 "first=smqos-lbm"
grep -Eq '^smqos@95% +- +all +met +100\.0% ' "$TMPD/smqos--triples" ||
    fail "smqos --triples: no QoS_reach row: $(cat "$TMPD/smqos--triples")"
# SMQoS §5.4: SMQoS against Offline, the static partition found by search, per column.
run smqos --offline --resume "$TMPD/offline.journal"
check smqos --offline 132 9 "Fig. 12: SMQoS's batch throughput is 7.07 % below Offline's"
# Each row of the SMQoS-against-Offline table, worked out again from the runs in --json (read
# from the journal): the LS task's NP / target of both, the share of mixes SMQoS is nearer 1,
# its LS SMs, Offline's partition, batch NP and power as ratios of group sums, runs per search.
"$CORUN" reproduce smqos --offline "${tiny[@]}" -j 2 --resume "$TMPD/offline.journal" --json \
    >"$TMPD/offline.json" 2>"$TMPD/err" || fail "smqos --offline --json: exit $? $(cat "$TMPD/err")"
python3 - "$TMPD/smqos--offline" "$TMPD/offline.json" <<'PY' || fail "smqos --offline against JSON: $(cat "$TMPD/smqos--offline")"
import json, re, sys
text = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]))
assert doc["resumed"] == 2, doc["resumed"]
assert doc["baseline"] == "even" and "  the baseline run: even's" in text, doc["baseline"]
head = [i for i, l in enumerate(text) if l.split()[:3] == ["column", "group", "mixes"]][0]
rows, col = {}, None
for l in text[head + 1:]:
    f = l.split()
    if not f:
        break
    if not l.startswith(" "):
        col = f.pop(0)
    rows[(col, f[0])] = f[1:]
checked = 0
for col in ("80%", "85%", "90%", "95%"):
    for group in ["all"] + sorted({m["tag"] for m in doc["per_mix"]}):
        mixes = [m for m in doc["per_mix"] if group == "all" or m["tag"] == group]
        pairs = []
        for m in mixes:
            by = {r["policy"]: r for r in m["runs"]}
            pairs.append((m["high_priority"], by["smqos@" + col], by["offline@" + col]))
        n = len(pairs)
        vs = [s["values"] for _, s, _ in pairs]
        vo = [o["values"] for _, _, o in pairs]
        want = [n,
                sum(v["hp_np_over_target"] for v in vs) / n,
                sum(v["hp_np_over_target"] for v in vo) / n,
                100 * sum(abs(a["hp_np_over_target"] - 1) < abs(b["hp_np_over_target"] - 1)
                          for a, b in zip(vs, vo)) / n,
                sum(s["sms"][hp] for hp, s, _ in pairs) / n,
                sum(o["offline"]["ls_sms"] for _, _, o in pairs) / n,
                sum(o["offline"]["batch_sms"] for _, _, o in pairs) / n,
                100 * (sum(v["batch_np"] for v in vs) / sum(v["batch_np"] for v in vo) - 1),
                100 * (sum(v["power_vs_baseline"] for v in vs) /
                       sum(v["power_vs_baseline"] for v in vo) - 1),
                sum(o["offline"]["runs"] for _, _, o in pairs) / n]
        got = rows[(col, group)]
        assert int(got[0]) == want[0], (col, group, got)
        for g, w, digits in zip(got[1:10], want[1:], (3, 3, 1, 1, 1, 1, 1, 1, 1)):
            assert abs(float(g.rstrip("%")) - w) <= 0.6 * 10 ** -digits, (col, group, got, want)
        checked += 1
assert checked == 4 * 3, checked
PY
python3 - "$TMPD/smqos--offline" <<'PY' || fail "smqos --offline: $(cat "$TMPD/smqos--offline")"
import re, sys
text = open(sys.argv[1]).read()
num = r" +([+-]?[\d.]+)%?"
rows = re.findall(r"^(\d\d)% +all +2" + num * 10 + "$", text, re.M)
assert [r[0] for r in rows] == ["80", "85", "90", "95"], "no smqos vs offline rows"
for r in rows:
    offnp, closer, n, m, runs, new = (float(v) for v in (r[2], r[3], r[5], r[6], r[9], r[10]))
    # The n found meets the target, and fewer batch SMs only take interference away.
    assert offnp >= 1.0, "Offline misses its target: " + str(r)
    assert 0 <= closer <= 100 and 1 <= n <= 23 and 1 <= m <= 24 - n, str(r)
    # 24 SMs: at most 1 + 5 runs to find n by bisection, 5 more for m.
    assert 1 <= runs <= 2 * 5 + 1 and 0 <= new <= runs, "runs per search: " + str(r)
assert re.search(r"^paper +all +100\.0% +-7\.07% +\+0\.6%$", text, re.M), "no paper row"
PY
! grep -q "^not run:.*Offline" "$TMPD/smqos" || fail "smqos: §5.4 Offline still listed as not run"
# An Offline column without its SMQoS partner says what it lacks, and no empty table of
# published figures is printed.
run smqos --offline --policies offline@95%
grep -q '^offline@95% is compared with nothing' "$TMPD/smqos--offline" &&
    grep -q 'needs both: --policies smqos@95%,offline@95%$' "$TMPD/smqos--offline" &&
    grep -q '^published beside ours: none the paper gives for these policies on smqos24$' \
        "$TMPD/smqos--offline" || fail "offline@95% alone: $(cat "$TMPD/smqos--offline")"
# SMQoS §5.3: the threshold sweep over the 11 pairs LBM leads, with a batch-NP table per mix.
run smqos --threshold
check smqos --threshold 11 10 "0.01 gives the best results across all task mixes"
python3 - "$TMPD/smqos--threshold" <<'PY' || fail "smqos --threshold: $(cat "$TMPD/smqos--threshold")"
import re, sys
text = open(sys.argv[1]).read()
head = re.search(r"^batchNP per mix and policy:\nmix +((?:t0\.\d\d +){9}t0\.10)$", text, re.M)
assert head, "no per-mix table header"
rows = re.findall(r"^(smqos-lbm\+\S+)((?: +[\d.]+){10})$", text, re.M)
assert len(rows) == 2, "per-mix rows: %d" % len(rows)
for key, vals in rows:
    assert all(0 < float(v) < 2 for v in vals.split()), key + vals
PY
! grep -q "^not run:" "$TMPD/smqos" || fail "smqos: something still listed as not run"
run themis --fairness
check themis --fairness 49 4 "0.150"
run themis --qos
check themis --qos 49 7 "91.8%"

# -j 1 gives the same tables as -j 2 (everything but the timing line).
"$CORUN" reproduce hsm --fairness "${tiny[@]}" -j 1 >"$TMPD/j1" 2>/dev/null || fail "-j 1: exit $?"
diff <(grep -v ' s wall' "$TMPD/j1") <(grep -v ' s wall' "$TMPD/hsm--fairness") >"$TMPD/diff" \
    || fail "-j 1 and -j 2 differ: $(cat "$TMPD/diff")"

# Without --fresh a finished run is read from the catalog (the runs above stored theirs): the
# same tables, every run said to be reused, and nothing simulated.
"$CORUN" reproduce hsm --fairness "${tiny[@]:0:9}" -j 1 >"$TMPD/reused" 2>/dev/null ||
    fail "reused: exit $?"
grep -q '^REUSED: 10 of 10 runs read from the catalog, finished earlier by this build' \
    "$TMPD/reused" || fail "no REUSED line: $(cat "$TMPD/reused")"
diff <(grep -v -e ' s wall' -e '^REUSED' "$TMPD/reused") <(grep -v ' s wall' "$TMPD/j1") \
    >"$TMPD/diff" || fail "the reused runs differ: $(cat "$TMPD/diff")"
# Another epoch count is another run: simulated, not reused.
"$CORUN" reproduce hsm --fairness "${tiny[@]:0:5}" --epoch-cycles 40000 --catalog "$TMPD/cat.db" \
    --policies fair/hsm >"$TMPD/other" 2>/dev/null || fail "other cycles: exit $?"
! grep -q '^REUSED' "$TMPD/other" || fail "other cycles reused: $(cat "$TMPD/other")"

# smqos --readings: SMQoS and Static-SMQoS at 95 % as corun reads them and as the paper may,
# each beside the paper's figure; --policies picks a reading by its label (':' is not a
# separator). Corun's own readings and the baseline are the runs `run smqos` above stored, so
# 6 of the 10 runs are read back.
"$CORUN" reproduce smqos --readings "${tiny[@]:1:6}" --catalog "$TMPD/cat.db" >"$TMPD/rd" \
    2>/dev/null || fail "smqos --readings: exit $?"
for label in 'smqos@95%:batch0' 'static-smqos@95%:down'; do
    grep -Eq "^$label +all +2 " "$TMPD/rd" || fail "no row for $label: $(cat "$TMPD/rd")"
    grep -Eq "^$label +- +all +met +(88.6|58.3)%" "$TMPD/rd" ||
        fail "no published figure beside $label: $(cat "$TMPD/rd")"
done
grep -q '^REUSED: 6 of 10 runs' "$TMPD/rd" || fail "smqos's runs not reused: $(cat "$TMPD/rd")"
"$CORUN" reproduce smqos --readings "${tiny[@]:1:6}" --catalog "$TMPD/cat.db" --fresh \
    --policies 'static-smqos@95%:down' >"$TMPD/rd1" 2>/dev/null || fail "--policies a reading: exit $?"
rows() { # the reading's row and its group rows
    awk '/^static-smqos@95%:down +all/ {p = 1; print; next} p && /^ +[A-Z][A-Z]-/ {print; next}
         {p = 0}' "$1"
}
[ -n "$(rows "$TMPD/rd")" ] || fail "no rows: $(cat "$TMPD/rd")"
diff <(rows "$TMPD/rd1") <(rows "$TMPD/rd") >"$TMPD/diff" ||
    fail "one reading alone differs from the whole table's: $(cat "$TMPD/diff")"

# Bad usage: a message and exit status 2.
bad() {
    local rc=0
    "$CORUN" reproduce "$@" >/dev/null 2>"$TMPD/err" || rc=$?
    [ "$rc" = 2 ] || fail "reproduce $*: exit $rc, expected 2"
    grep -q "corun" "$TMPD/err" || fail "reproduce $*: no message"
}
bad nosuch --fairness
bad smqos --bogus
bad smqos --fairness
bad hsm --fairness --qos
bad themis --qos --mixes 0
bad hsm --fairness extra
bad hsm --threshold --fairness
bad smqos --triples --qos
bad themis --triples
bad hsm --threshold --policies fair/hsm@0.9
grep -q "no policy 'fair/hsm@0.9'; it has: even, fair/hsm@0.70" "$TMPD/err" ||
    fail "--policies with an unknown label: $(cat "$TMPD/err")"
bad hsm --threshold --policies even,even
bad hsm --accuracy --policies even
exit 0
