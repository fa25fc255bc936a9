#!/usr/bin/env bash
# The classroom demos (scenarios/demo-*.cfg) are valid and run: each checks, and two epochs of
# each run headless and print both epochs (their speed is measured by hand, not here: tests
# have no wall-clock limits).
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"
n=0
for f in "$top_srcdir"/scenarios/demo-*.cfg; do
    "$CORUN" check "$f" >/dev/null 2>"$TMPD/err" || fail "corun check $f: $(cat "$TMPD/err")"
    "$CORUN" run "$f" --epochs 2 >"$TMPD/out" 2>&1 || fail "corun run $f: $(cat "$TMPD/out")"
    grep -Eq '^ +2 ' "$TMPD/out" || fail "$f did not run two epochs: $(cat "$TMPD/out")"
    grep -q '^lesson = ' "$f" || fail "$f has no lesson text"
    n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "only $n demo scenarios"

# The even-split lesson's reveal says what the screen shows on its scenario (demo-pair): at the
# even split bino's NP is near half, and lbm's is above 1, its row-buffer hit rate above what it
# has alone on all 40 SMs (the text said lbm "loses much less", while its NP was 1.15-1.29).
grep -q 'lbm, memory-bound, lost nothing: its NP is above 1' "$top_srcdir/scenarios/lessons/even-split.cfg" ||
    fail "the even-split lesson no longer says what this checks"
alone=$("$CORUN" solo lbm --set gpu.sms=40 --sms 40 --cycles 40000 | sed -n 's/^  RBH *//p')
"$CORUN" run "$top_srcdir/scenarios/demo-pair.cfg" --epochs 2 --json 2>/dev/null >"$TMPD/pair.json"
python3 - "$TMPD/pair.json" "$alone" <<'PY' || fail "the even-split lesson's reveal does not hold"
import json, sys
epochs, alone = json.load(open(sys.argv[1]))["epochs"], float(sys.argv[2])
for e in epochs:
    lbm, bino = e["kernels"]
    assert lbm["name"] == "lbm" and bino["name"] == "bino", e
    assert lbm["np"] > 1 and lbm["rbh"] > alone, (lbm, alone)
    assert 0.45 <= bino["np"] <= 0.55, bino
PY
echo "demos: $n scenarios check and run; the even-split lesson's reveal holds"
