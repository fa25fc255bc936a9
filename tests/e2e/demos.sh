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
echo "demos: $n scenarios check and run"
