#!/usr/bin/env bash
# corun reproduce, SM-allocation experiments: the quickest form of each (2 mixes, 1 epoch of
# 50 K cycles) prints its reduction, one row per policy and category with metrics in range,
# and the published figures beside ours; results do not depend on -j; bad usage is refused
# with a message and exit status 2.
. "$(dirname "$0")/../lib.sh"

"$CORUN" reproduce --list >"$TMPD/list" || fail "--list: exit $?"
for l in '^hsm +--fairness' '^hsm +--qos' '^smqos ' '^themis +--fairness' '^themis +--qos'; do
    grep -Eq "$l" "$TMPD/list" || fail "--list has no $l: $(cat "$TMPD/list")"
done

tiny=(--quick --mixes 2 --epochs 1 --epoch-cycles 50000 --catalog "$TMPD/cat.db")
check() { # NAME FLAG SUITE-MIXES POLICIES PUBLISHED-TEXT
    local out="$TMPD/$1$2"
    python3 - "$out" "$3" "$4" "$5" <<'PY' || fail "$1 $2: $(cat "$out")"
import re, sys
text = open(sys.argv[1]).read()
suite_mixes, npol, published = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
assert re.search(r": 2 of %d mixes x %d policies, 1 epoch of 50000 cycles, seed 1; 0 failed"
                 % (suite_mixes, npol), text), "suite line"
assert re.search(r"^REDUCED \(--quick\): 2 of %d mixes, 1 x 50000 cycles per run instead of "
                 r"the paper-sized \d+ x \d+ .*about [\d.]+ h of one core$" % suite_mixes,
                 text, re.M), "no reduction line"
lines = text.splitlines()
head = [i for i, l in enumerate(lines) if l.split()[:3] == ["policy", "group", "mixes"]]
assert len(head) == 1, "no column header"
ncols = len(lines[head[0]].split()) - 3
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
    for v in vals:
        if v == "-":
            continue
        if v.endswith("%"):
            assert 0 <= float(v[:-1]) <= 100, "share out of range: " + l
        else:
            assert 0 < float(v) < 100, "value out of range: " + l
assert alls == npol, "%d policy rows, expected %d" % (alls, npol)
assert "published beside ours" in text and published in text, "no published figure " + published
PY
}

run() { # NAME FLAG...
    local name=$1 flag=${2:-}
    "$CORUN" reproduce $name $flag "${tiny[@]}" -j 2 >"$TMPD/$name$flag" 2>"$TMPD/err" \
        || fail "reproduce $name $flag: exit $? $(cat "$TMPD/err")"
}

run hsm --fairness
check hsm --fairness 105 5 "84.1%"
run hsm --qos
check hsm --qos 105 4 "+18.9%"
run smqos
check smqos "" 132 9 "88.6%"
grep -q "^not run: §5.5 (three tasks)" "$TMPD/smqos" || fail "smqos: 3-task mixes not mentioned"
run themis --fairness
check themis --fairness 49 4 "0.150"
run themis --qos
check themis --qos 49 7 "91.8%"

# -j 1 gives the same tables as -j 2 (everything but the timing line).
"$CORUN" reproduce hsm --fairness "${tiny[@]}" -j 1 >"$TMPD/j1" 2>/dev/null || fail "-j 1: exit $?"
diff <(grep -v ' s wall' "$TMPD/j1") <(grep -v ' s wall' "$TMPD/hsm--fairness") >"$TMPD/diff" \
    || fail "-j 1 and -j 2 differ: $(cat "$TMPD/diff")"

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
exit 0
