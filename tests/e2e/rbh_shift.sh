#!/usr/bin/env bash
# `corun rbh-shift` (HSM Fig. 4) in its quick form: two memory-bound applications, each alone
# and beside a few co-runners, in forked workers. Checks the table's shape and its arithmetic,
# not the simulated numbers (the full table is in the issue notes).
. "$(dirname "$0")/../lib.sh"

set +e
"$CORUN" rbh-shift --quick -j 2 --json --with bino,pvc,srad srad lbm >"$TMPD/r.json" \
    2>"$TMPD/err.txt"
rc=$?
set -e
[ $rc -le 1 ] || fail "rbh-shift --json: exit $rc: $(cat "$TMPD/err.txt")"
python3 - "$TMPD/r.json" "$rc" <<'PY' || fail "rbh-shift JSON: $(cat "$TMPD/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["gpu"] == "hbm80" and r["sms"] == 80 and r["sms_each"] == 40, r
assert r["cycles"] == 20000 and r["warmup_cycles"] == 2000 and r["tolerance"] == 0.1, r
ks = r["kernels"]
assert [k["name"] for k in ks] == ["lbm", "srad"], ks  # sorted by name
want = {"lbm": ["bino", "pvc", "srad"], "srad": ["bino", "pvc"]}  # never paired with itself
for k in ks:
    shared = k["shared"]
    assert sorted(shared) == want[k["name"]], k
    assert all(0 <= v <= 1 for v in list(shared.values()) + [k["rbh_private"]]), k
    shifts = {c: abs(v - k["rbh_private"]) for c, v in shared.items()}
    assert abs(k["max_shift"] - max(shifts.values())) < 1e-3, k
    assert abs(shifts[k["against"]] - k["max_shift"]) < 1e-3, k
    assert k["status"] == ("ok" if k["max_shift"] <= 0.1 else "out"), k
failures = sum(k["status"] == "out" for k in ks)
assert r["failures"] == failures and (failures > 0) == (sys.argv[2] == "1"), (r, sys.argv[2])
PY

# The pair lbm + srad is simulated once for both: the same numbers without workers.
set +e
"$CORUN" rbh-shift --quick --json --with bino,pvc,srad srad lbm >"$TMPD/r1.json"
set -e
cmp -s "$TMPD/r.json" "$TMPD/r1.json" || fail "-j 2 and -j 1 differ:
$(diff "$TMPD/r.json" "$TMPD/r1.json")"

# Text form: a header, one row per application, a verdict line.
set +e
"$CORUN" rbh-shift --cycles 5000 --with bino lbm >"$TMPD/r.txt"
set -e
[ "$(wc -l <"$TMPD/r.txt")" -eq 4 ] || fail "text table: $(cat "$TMPD/r.txt")"
grep -q '^kernel  *private  *min  *mean  *max  *|shift|  *against  *verdict$' "$TMPD/r.txt" ||
    fail "text header: $(cat "$TMPD/r.txt")"
grep -Eq '^lbm +(0\.[0-9]{3} +){5} bino +(ok|OUT)$' "$TMPD/r.txt" ||
    fail "text row: $(cat "$TMPD/r.txt")"
grep -q '^[01] of 1 within 0.10' "$TMPD/r.txt" || fail "text verdict: $(cat "$TMPD/r.txt")"

# An odd SM count is split unevenly; the header said each had the smaller half.
set +e
"$CORUN" rbh-shift --quick --gpu k40 --with pvc lbm >"$TMPD/k40.txt"
set -e
head -1 "$TMPD/k40.txt" | grep -q 'all 15 SMs (private) and beside each co-runner on 7 or 8 SMs (shared; the first by name of a pair has 8);' ||
    fail "odd SM count: $(cat "$TMPD/k40.txt")"
# ... and the JSON gave "sms_each": 7 alone: it now gives each one's share, sms_each only when
# the split is even (hbm80's 40 and 40 above).
set +e
"$CORUN" rbh-shift --quick --gpu k40 --with pvc --json lbm >"$TMPD/k40.json"
set -e
python3 - "$TMPD/k40.json" "$TMPD/r.json" <<'PY' || fail "odd SM count JSON: $(head -1 "$TMPD/k40.json")"
import json, sys
k, h = (json.load(open(f)) for f in sys.argv[1:3])
assert k["sms"] == 15 and k["sms_first"] == 8 and k["sms_second"] == 7, k
assert "sms_each" not in k, k
assert h["sms_first"] == h["sms_second"] == h["sms_each"] == 40, h
PY

# Names it cannot use are bad input (exit 2) with a message.
for args in "bino" "--with kmeans lbm" "nosuch"; do
    set +e
    # shellcheck disable=SC2086 # the words are the arguments
    "$CORUN" rbh-shift --cycles 1000 $args >/dev/null 2>"$TMPD/bad.txt"
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "rbh-shift $args: exit $rc, expected 2"
    grep -q 'rbh-shift: ".*" is not' "$TMPD/bad.txt" || fail "rbh-shift $args: $(cat "$TMPD/bad.txt")"
done
# A --set under which a kernel cannot run is bad input too, said before anything runs (each
# run failed, exit 1); the SM count's refusal speaks of the preset, not a suite.
expect_bad "rbh-shift --set smem 0" \
    '^corun: rbh-shift: on hbm80 with its --set: .*/data/kernels/bino\.cfg:[0-9]*: kernel bino: no thread block fits on an SM' \
    "$CORUN" rbh-shift --cycles 1000 --with bino --set gpu.smem_per_sm_bytes=0 lbm
expect_bad "rbh-shift --set gpu.sms" "gpu.sms=8: the SM count is the preset's here" \
    "$CORUN" rbh-shift --cycles 1000 --with bino --set gpu.sms=8 lbm
# Names given twice or left out, and two lengths: each was taken, the later one unsaid.
expect_bad "--with twice" "rbh-shift --with: bino is named twice" "$CORUN" rbh-shift --with bino,bino lbm
expect_bad "--with an empty name" "expected kernel names separated by commas, got 'bino,'" \
    "$CORUN" rbh-shift --with bino, lbm
expect_bad "a kernel twice" "rbh-shift: lbm is named twice" "$CORUN" rbh-shift --quick lbm lbm
expect_bad "--quick and --cycles" "--quick and --cycles both set the cycles" \
    "$CORUN" rbh-shift --cycles 5000 --quick lbm
expect_bad "calibrate --quick and --cycles" "--quick and --cycles both set the cycles" \
    "$CORUN" calibrate --cycles 5000 --quick lbm
expect_bad "calibrate a kernel twice" "calibrate: lbm is named twice" "$CORUN" calibrate --quick lbm lbm
# A --with of no names is refused, not taken for "every co-runner" (which it once ran).
for w in , ""; do
    set +e
    "$CORUN" rbh-shift --cycles 1000 --with "$w" lbm >/dev/null 2>"$TMPD/bad.txt"
    rc=$?
    set -e
    [ $rc -eq 2 ] && grep -qx "corun: --with: expected kernel names separated by commas, got '$w'" \
        "$TMPD/bad.txt" || fail "rbh-shift --with '$w': exit $rc: $(cat "$TMPD/bad.txt")"
done
# --set changes a GPU setting for every run: named in the header and the JSON, other RBHs
# (a longer tFAW spaces the activations out); a setting that is not the GPU's is bad input.
set +e
"$CORUN" rbh-shift --cycles 5000 --with bino --json lbm >"$TMPD/plain.json"
"$CORUN" rbh-shift --cycles 5000 --with bino --json --set gpu.dram.timing.faw=60 lbm \
    >"$TMPD/faw.json"
"$CORUN" rbh-shift --cycles 5000 --with bino --set gpu.dram.timing.faw=60 lbm >"$TMPD/faw.txt"
set -e
python3 - "$TMPD/plain.json" "$TMPD/faw.json" <<'PY' || fail "rbh-shift --set JSON"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["sets"] == [] and b["sets"] == ["gpu.dram.timing.faw=60"], (a["sets"], b["sets"])
assert a["kernels"][0]["rbh_private"] != b["kernels"][0]["rbh_private"], (a, b)
PY
grep -q '^HSM Fig. 4 on hbm80 with gpu.dram.timing.faw=60: ' "$TMPD/faw.txt" ||
    fail "rbh-shift --set header: $(head -1 "$TMPD/faw.txt")"
# --seed: 1 is the default, 0 is a seed too (other address streams, other RBHs).
"$CORUN" rbh-shift --cycles 5000 --with bino --json --seed 1 lbm >"$TMPD/seed1.json"
"$CORUN" rbh-shift --cycles 5000 --with bino --json --seed 0 lbm >"$TMPD/seed0.json"
cmp -s "$TMPD/plain.json" "$TMPD/seed1.json" || fail "rbh-shift --seed 1 is not the default"
cmp -s "$TMPD/seed1.json" "$TMPD/seed0.json" && fail "rbh-shift --seed 0 measured as seed 1"
expect_bad "rbh-shift --set epochs" 'expected gpu.SETTING=VALUE' "$CORUN" rbh-shift --quick \
    --set epochs=1 lbm
expect_bad "rbh-shift --set gpu.nosuch" 'gpu.nosuch: unknown gpu setting' "$CORUN" rbh-shift \
    --quick --set gpu.nosuch=1 lbm
# A name nearly right is told the names taken and the likely one (it was only refused).
expect_bad "rbh-shift LBM" '^corun: rbh-shift: "LBM" is not a memory-bound HSM application .*; known: 2dconv, .* (did you mean lbm?)$' \
    "$CORUN" rbh-shift --quick LBM
expect_bad "rbh-shift --with 'pvc, srad'" '" srad" is not an HSM application .*(did you mean srad?)$' \
    "$CORUN" rbh-shift --quick --with "pvc, srad" lbm
# An application whose only co-runner named is itself has no pair: refused (it printed a row
# of inf and nan, and passed).
expect_bad "rbh-shift --with itself" '^corun: rbh-shift: lbm has no co-runner: --with names only itself$' \
    "$CORUN" rbh-shift --quick --with lbm lbm srad

# A worker killed part-way (the first, with lbm's run alone) is named, exit status 1, and the
# rest of the study is still reported: srad's row, without its pair with lbm; lbm has no row.
run_killing_first_worker "$TMPD/lost.json" "$TMPD/lost.err" \
    "$CORUN" rbh-shift --cycles 400000 -j 2 --json --with bino,pvc lbm srad
rc=$killed_rc
[ $rc -eq 1 ] || fail "rbh-shift with a killed worker: exit $rc: $(cat "$TMPD/lost.err")"
grep -qx 'corun: rbh-shift: lbm on hbm80: its worker process was killed by signal 9 (Killed)' \
    "$TMPD/lost.err" || fail "the killed run is not named: $(cat "$TMPD/lost.err")"
python3 - "$TMPD/lost.json" <<'PY' || fail "rbh-shift JSON after a killed worker: $(cat "$TMPD/lost.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["runs"] == 6 and r["failed_runs"] == 1, r  # 2 alone, each beside bino and pvc
assert [k["name"] for k in r["kernels"]] == ["srad"], r
assert sorted(r["kernels"][0]["shared"]) == ["bino", "pvc"], r
PY
echo "rbh-shift (quick): table shape, arithmetic and -j agree; --set; --seed; a killed worker"
