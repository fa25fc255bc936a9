#!/usr/bin/env bash
# The calibration in reduced form: representative kernels of each paper on their presets at a
# short window must keep their class (and, for HSM, their MPKI within 25 %). A change to the
# simulation core that breaks the benchmark library fails here.
. "$(dirname "$0")/../lib.sh"

check() { # GPU KERNEL...
    local gpu=$1
    shift
    "$CORUN" calibrate --gpu "$gpu" --quick --json "$@" >"$TMPD/$gpu.json" ||
        fail "calibrate --gpu $gpu $*: exit $?: $(cat "$TMPD/$gpu.json")"
    python3 - "$TMPD/$gpu.json" "$#" <<'PY' || fail "calibrate $gpu JSON: $(cat "$TMPD/$gpu.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["failures"] == 0 and len(r["kernels"]) == int(sys.argv[2]), r
for k in r["kernels"]:
    assert k["class"] == k["target_class"] or k["target_class"] == "compute" and k["class"] == "balanced", k
PY
}
check hbm80 pvc lbm 2dconv dxtc hotspot
check smqos24 atax hs
check themis60 srd2 kmeans tpac

# Text form, and a drift is exit 1: a copy of the data with pvc made compute-bound.
"$CORUN" calibrate --gpu hbm80 --quick bino | grep -q '^bino .* compute   compute   ok$' ||
    fail "calibrate text: $("$CORUN" calibrate --gpu hbm80 --quick bino)"
mkdir -p "$TMPD/d/data/kernels"
ln -s "$top_srcdir/data/gpus" "$TMPD/d/data/gpus"
sed 's/^mem_fraction = .*/mem_fraction = 0.001;/' "$top_srcdir/data/kernels/pvc.cfg" \
    >"$TMPD/d/data/kernels/pvc.cfg"
set +e
CORUN_DATADIR="$TMPD/d" "$CORUN" calibrate --gpu hbm80 --quick >"$TMPD/drift.txt"
rc=$?
set -e
[ $rc -eq 1 ] || fail "a drifted profile: exit $rc, expected 1"
grep -q '^pvc .*DRIFT (class)$' "$TMPD/drift.txt" || fail "drift row: $(cat "$TMPD/drift.txt")"
echo "calibrate (quick): classes and MPKI within tolerance; drift detected"
