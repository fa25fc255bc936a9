#!/usr/bin/env bash
# `corun run` and `corun solo`: output shape, JSON, determinism for a seed, solo's progress bar
# on a terminal, its grid line, --seed and --set, and bad input.
. "$(dirname "$0")/../lib.sh"
small="$top_srcdir/tests/data/good/small.cfg"

"$CORUN" run "$small" >"$TMPD/run.txt"
grep -q '^small pair (gpu hbm80): 3 epochs of 20000 cycles, seed 7$' "$TMPD/run.txt" || fail "header: $(head -1 "$TMPD/run.txt")"
[ "$(grep -c '^ *[0-9] *stream ' "$TMPD/run.txt")" -eq 3 ] || fail "3 stream rows expected"
[ "$(grep -c 'system: STP' "$TMPD/run.txt")" -eq 3 ] || fail "3 system rows expected"

"$CORUN" run "$small" --epochs 2 --json >"$TMPD/a.json"
"$CORUN" run "$small" --epochs 2 --json >"$TMPD/b.json"
cmp -s "$TMPD/a.json" "$TMPD/b.json" || fail "same scenario and seed gave different results"
sed 's/^seed = 7;/seed = 8;/' "$small" >"$TMPD/seed8.cfg"
"$CORUN" run "$TMPD/seed8.cfg" --epochs 2 --json >"$TMPD/c.json"
cmp -s "$TMPD/a.json" "$TMPD/c.json" && fail "another seed gave identical results"
python3 - "$TMPD/a.json" <<'PY' || fail "run JSON: $(cat "$TMPD/a.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["epochs"]) == 2, r
# Numbered from 1, back to back; one-kernel applications in their first (only) phase; no
# predictor.
assert [(e["epoch"], e["start_cycle"], e["cycles"]) for e in r["epochs"]] == [(1, 0, 20000), (2, 20000, 20000)], r
assert all(k["phase"] == 1 for e in r["epochs"] for k in e["kernels"]), r
assert all(e["predictor"] is None for e in r["epochs"]), r
for e in r["epochs"]:
    ks = {k["name"]: k for k in e["kernels"]}
    assert abs(ks["stream"]["sms"] - 8) < 1e-9 and abs(ks["compute"]["sms"] - 8) < 1e-9, ks
    # Half the SMs: the compute-bound kernel runs at about half its private speed.
    assert 0.4 < ks["compute"]["np"] < 0.6, ks
    assert ks["stream"]["bandwidth_gbs"] > ks["compute"]["bandwidth_gbs"], ks
    assert abs(e["stp"] - sum(k["np"] for k in e["kernels"])) < 1e-3, e
PY

"$CORUN" solo compute --gpu hbm80 --sms 8 --cycles 20000 --json >"$TMPD/solo.json"
python3 - "$TMPD/solo.json" <<'PY' || fail "solo JSON: $(cat "$TMPD/solo.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["sms"] == 8 and r["ipc"] > 0 and 0 <= r["rbh"] <= 1, r
PY
"$CORUN" solo stream --cycles 20000 | grep -q '^  bandwidth .* GB/s, .* % of peak$' || fail "solo text"
# Without a DRAM request there is no row hit rate: said, and null (it read 0.000).
"$CORUN" solo teach-compute --sms 4 --cycles 3000 >"$TMPD/nodram.txt" &&
    grep -q '^  RBH          - (no DRAM requests)$' "$TMPD/nodram.txt" || fail "solo without DRAM: $(cat "$TMPD/nodram.txt")"
"$CORUN" solo teach-compute --sms 4 --cycles 3000 --json |
    python3 -c 'import json, sys; r = json.load(sys.stdin); assert r["dram_requests"] == 0 and r["rbh"] is None, r' ||
    fail "solo --json without DRAM"
# On a terminal (script gives it one; Debian's bsdutils, always installed), solo draws a
# progress bar on stderr up to 100 %; its report and JSON are those of a run without one.
if command -v script >/dev/null; then
    script -qec "\"$CORUN\" solo stream --sms 8 --cycles 20000 --json" /dev/null |
        tr '\r' '\n' >"$TMPD/tty" || fail "solo on a terminal: exit $?"
    grep -q '^\[#*  *\] *[0-9]*% stream alone on hbm80' "$TMPD/tty" &&
        grep -q '^\[##############################\] 100% stream alone on hbm80' "$TMPD/tty" ||
        fail "solo on a terminal: no progress bar: $(cat "$TMPD/tty")"
    "$CORUN" solo stream --sms 8 --cycles 20000 --json >"$TMPD/notty.json" 2>"$TMPD/notty.err"
    [ ! -s "$TMPD/notty.err" ] || fail "solo drew on a stderr that is not a terminal"
    grep -q '^{' "$TMPD/tty" && [ "$(grep '^{' "$TMPD/tty")" = "$(cat "$TMPD/notty.json")" ] ||
        fail "solo on a terminal measured otherwise: $(grep '^{' "$TMPD/tty")"
fi
# A grid too small to fill the SMs says how much of them it can fill: dwt2d's first kernel has
# 90 TBs of 6 warps, on 80 SMs of 64 warp slots about 1.1 TBs, 11 % (the per-SM limit is 94 %).
"$CORUN" solo dwt2d --cycles 5000 >"$TMPD/dwt.txt"
grep -q '^  grid         90 TBs over 80 SMs: at most 1.1 TBs per SM at once on average (11 % of the warp slots), first kernel$' \
    "$TMPD/dwt.txt" || fail "grid line: $(cat "$TMPD/dwt.txt")"
"$CORUN" solo compute --cycles 5000 | grep -q '^  grid' && fail "a grid that fills the SMs got a grid line"
# One kernel says no "first kernel" (bh: 480 TBs of 4 warps, 6.0 per SM, 37.5 % rounded to
# even); of two kernels, the first is named (bicg's 16 TBs).
"$CORUN" solo bh --cycles 2000 | grep -qx '  grid         480 TBs over 80 SMs: at most 6.0 TBs per SM at once on average (38 % of the warp slots)' ||
    fail "bh's grid line: $("$CORUN" solo bh --cycles 2000)"
"$CORUN" solo bicg --cycles 2000 | grep -q '^  grid         16 TBs over 80 SMs: .*, first kernel$' ||
    fail "bicg's grid line: $("$CORUN" solo bicg --cycles 2000)"

# --seed moves a memory-bound kernel's streams, and 1 is the default; --set changes the preset
# before --sms is checked against it, every --set taken, and the preset's own rules checked.
"$CORUN" solo stream --sms 8 --cycles 20000 --json >"$TMPD/seed_default.json"
"$CORUN" solo stream --sms 8 --cycles 20000 --seed 1 --json >"$TMPD/seed1.json"
"$CORUN" solo stream --sms 8 --cycles 20000 --seed 2 --json >"$TMPD/seed2.json"
cmp -s "$TMPD/seed_default.json" "$TMPD/seed1.json" || fail "--seed 1 is not the default:
$(cat "$TMPD/seed_default.json" "$TMPD/seed1.json")"
cmp -s "$TMPD/seed1.json" "$TMPD/seed2.json" && fail "--seed 2 measured the same as seed 1"
"$CORUN" solo stream --set gpu.sms=16 --set gpu.llc.latency_cycles=240 --cycles 2000 |
    grep -q "^stream alone on 16 of hbm80's 16 SMs" || fail "--set gpu.sms=16 first of two was not taken"
"$CORUN" solo stream --set gpu.llc.latency_cycles=240 --set gpu.sms=16 --cycles 2000 |
    grep -q "^stream alone on 16 of hbm80's 16 SMs" || fail "--set gpu.sms=16 second of two was not taken"
# What --set changed is said beside the preset's name (the header and the JSON named hbm80
# alone, as if it had run as shipped).
"$CORUN" solo stream --set gpu.sms=16 --set gpu.llc.latency_cycles=240 --cycles 2000 |
    grep -qx "stream alone on 16 of hbm80's 16 SMs with gpu.sms=16, gpu.llc.latency_cycles=240, 2000 cycles measured after 200 of warm-up" ||
    fail "solo --set header: $("$CORUN" solo stream --set gpu.sms=16 --cycles 2000 | head -1)"
"$CORUN" solo stream --set gpu.sms=16 --cycles 2000 --json |
    grep -q '^{"kernel": "stream", "gpu": "hbm80", "sets": \["gpu.sms=16"\], "sms": 16,' ||
    fail "solo --set JSON: $("$CORUN" solo stream --set gpu.sms=16 --cycles 2000 --json)"

expect_bad() { # MESSAGE ARGS...
    local want=$1
    shift
    set +e
    "$CORUN" "$@" >"$TMPD/out" 2>"$TMPD/err"
    local rc=$?
    set -e
    [ $rc -eq 2 ] || fail "corun $*: exit $rc, expected 2"
    grep -qF -- "$want" "$TMPD/err" || fail "corun $*: want '$want', got '$(cat "$TMPD/err")'"
    [ ! -s "$TMPD/out" ] || fail "corun $*: wrote to stdout"
}
expect_bad 'corun: solo: unknown kernel "strem"' solo strem
expect_bad '(did you mean stream?)' solo strem
# A profile's file name or path is its name with .cfg: named so, it was only "unknown".
expect_bad 'corun: solo: unknown kernel "stream.cfg" (did you mean stream? it is named without .cfg)' \
    solo stream.cfg
expect_bad 'unknown kernel "data/kernels/stream.cfg" (did you mean stream? it is named without its directory and .cfg)' \
    solo data/kernels/stream.cfg
expect_bad 'corun: --gpu: unknown GPU preset "hbm80.cfg" (did you mean hbm80? it is named without .cfg)' \
    solo stream --gpu hbm80.cfg
expect_bad 'unknown kernel "strem.cfg" (did you mean stream?)' solo strem.cfg
expect_bad "--sms (hbm80 has 80 SMs): expected a whole number from 1 to 80, got '81'" solo stream --sms 81
# 0 and words get the preset's range too (0 was once told "from 1 to 1024").
expect_bad "--sms (hbm80 has 80 SMs): expected a whole number from 1 to 80, got '0'" solo stream --sms 0
expect_bad "--sms (gddr5_40 has 40 SMs): expected a whole number from 1 to 40, got 'all'" solo stream --sms all --gpu gddr5_40
expect_bad "--cycles: expected a whole number from 1000 to 1000000000, got '10'" solo stream --cycles 10
expect_bad 'corun: --gpu: unknown GPU preset "a100"' solo stream --gpu a100
# The preset as --set changed it (it read "hbm80 has 16 SMs", which it has not).
expect_bad "--sms (hbm80 with its --set has 16 SMs): expected a whole number from 1 to 16, got '17'" solo stream --set gpu.sms=16 --sms 17
expect_bad "--sms (hbm80 has 80 SMs): expected a whole number from 1 to 80, got '81'" solo stream --sms 81
expect_bad "corun: solo: --set: llc_slices is 7: expected >= 1 and dividing llc.size_bytes" solo stream --set gpu.llc_slices=7
# A --set refusal begins as solo's others do (it began "--set:", without corun or the command).
expect_bad "corun: solo: --set: gpu.nope: unknown gpu setting" solo stream --set gpu.nope=1
expect_bad "--seed: expected a whole number from 0 to 1000000000000000000, got '-1'" solo stream --seed -1
expect_bad "--epochs: expected a whole number from 1 to 1000000, got '0'" run "$small" --epochs 0
expect_bad "$TMPD/none.cfg: cannot open" run "$TMPD/none.cfg"
expect_bad 'usage: corun run SCENARIO' run
echo "run and solo: output, JSON, determinism and bad input ok"
