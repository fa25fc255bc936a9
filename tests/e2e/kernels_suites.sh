#!/usr/bin/env bash
# `corun kernels` (its progress bar on a terminal too), `corun suite` and broken kernel profiles.
. "$(dirname "$0")/../lib.sh"

"$CORUN" kernels list >"$TMPD/list.txt"
for k in pvc lbm mri-q smqos-lbm kmeans cachepp1 bwpp12 teach-stream stream; do
    grep -q "^$k " "$TMPD/list.txt" || fail "kernels list lacks $k"
done
grep -q '^pvc  *hsm  *memory  *Page View Count' "$TMPD/list.txt" || fail "pvc row: $(grep '^pvc' "$TMPD/list.txt")"
# The columns line up whatever a name's length (teach-compute's pushed its row right).
[ "$(awk '{ match($0, /^[^ ]+ +/); print RLENGTH }' "$TMPD/list.txt" | sort -u | wc -l)" -eq 1 ] ||
    fail "kernels list: the source column moves: $(awk '{ match($0, /^[^ ]+ +/); print RLENGTH, $1 }' "$TMPD/list.txt" | sort -n | sed -n '1p;$p')"
"$CORUN" kernels list --json >"$TMPD/list.json"
python3 - "$TMPD/list.json" <<'PY' || fail "kernels list JSON"
import json, sys
ks = {k["name"]: k for k in json.load(open(sys.argv[1]))}
assert sum(k["source"] == "hsm" for k in ks.values()) == 15, ks
assert sum(k["source"] == "smqos" and k["class"] != "none" for k in ks.values()) == 12
assert sum(k["source"] == "themis" and k["class"] != "none" for k in ks.values()) == 22
assert sum(k["split"] == "test" for k in ks.values()) == 7
assert ks["stream"]["source"] == "built-in"
PY
"$CORUN" kernels show hotspot --cycles 10000 --json >"$TMPD/show.json"
python3 - "$TMPD/show.json" <<'PY' || fail "kernels show JSON: $(cat "$TMPD/show.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["gpu"] == "hbm80" and r["profile"]["paper"] == "hsm", r
m = r["measured"]
assert m["sms"] == 80 and m["class"] == "compute" and m["scaling"] > 0.95, m
# occupancy from the profile's resources (as `corun solo` prints it)
assert m["occupancy_tbs"] >= 1 and m["occupancy_warps"] == m["occupancy_tbs"] * r["profile"]["warps_per_tb"], m
assert m["occupancy_limit"] in ("warp slots", "registers", "shared memory", "thread-block slots", "the profile's tbs_per_sm"), m
PY
"$CORUN" kernels show atax --cycles 10000 | grep -q '^measured alone on smqos24' || fail "show text"
# On a terminal (script: Debian's always-installed bsdutils) its two runs draw one progress bar,
# the first up to 50 % and the second on to 100 %, and the JSON is the one measured without a
# terminal.
if command -v script >/dev/null; then
    script -qec "\"$CORUN\" kernels show hotspot --cycles 10000 --json" /dev/null | tr '\r' '\n' \
        >"$TMPD/tty" || fail "kernels show on a terminal: exit $?"
    grep -q '^\[#*  *\]  *[0-9]*% hotspot alone on hbm80$' "$TMPD/tty" &&
        grep -q '^\[##############################\] 100% hotspot alone on hbm80$' "$TMPD/tty" &&
        grep -q '^\[###############  *\]  50% hotspot' "$TMPD/tty" ||
        fail "kernels show on a terminal: no progress bar over both runs: $(cat "$TMPD/tty")"
    [ "$(grep '^{' "$TMPD/tty")" = "$(cat "$TMPD/show.json")" ] ||
        fail "kernels show on a terminal measured otherwise: $(grep '^{' "$TMPD/tty")"
fi
# A setting at 0 says what 0 means (its help's words), and the occupancy is the solo run's.
"$CORUN" kernels show bino --cycles 2000 >"$TMPD/bino.txt"
grep -qx '  tbs_per_sm           0 (none)' "$TMPD/bino.txt" || fail "tbs_per_sm 0: $(cat "$TMPD/bino.txt")"
grep -qx "  dep_latency          0 core cycles (the preset's alu_latency_cycles)" "$TMPD/bino.txt" ||
    fail "dep_latency 0: $(cat "$TMPD/bino.txt")"
grep -qx '  warps_per_tb         4' "$TMPD/bino.txt" || fail "warps_per_tb 4 (no meaning added)"
occ=$("$CORUN" solo bino --cycles 1000 | sed -n 's/^  occupancy    //p')
[ -n "$occ" ] && grep -qxF "occupancy on hbm80: $occ" "$TMPD/bino.txt" ||
    fail "occupancy '$occ' not in: $(cat "$TMPD/bino.txt")"
# An application of several kernels (fwt: three) shows each kernel's settings that differ and
# each kernel's occupancy (its second kernel: 16 warps per TB and 8 KB of shared memory).
"$CORUN" kernels show fwt --cycles 2000 >"$TMPD/fwt.txt"
grep -qx '  phases               3 kernels run in order, then from the first again:' "$TMPD/fwt.txt" &&
    grep -qx '    kernel 1 of 3      the settings above' "$TMPD/fwt.txt" &&
    grep -q '^    kernel 2 of 3      tbs 4096, warps_per_tb 16, .*smem_per_tb_bytes 8192, ' "$TMPD/fwt.txt" ||
    fail "fwt's kernels: $(cat "$TMPD/fwt.txt")"
grep -qx '                    4 TBs of 16 warps per SM: 64 of 64 warps (100 %), bound by warp slots (kernel 2 of 3)' \
    "$TMPD/fwt.txt" || fail "fwt's second kernel's occupancy: $(cat "$TMPD/fwt.txt")"
[ "$("$CORUN" solo fwt --cycles 1000 | grep -c '(kernel [123] of 3)$')" -eq 3 ] ||
    fail "solo fwt: not an occupancy line per kernel"
"$CORUN" kernels show fwt --cycles 2000 --json | python3 -c '
import json, sys
ph = json.load(sys.stdin)["profile"]["phases"]
assert len(ph) == 3 and ph[0] == {} and ph[1]["warps_per_tb"] == 16 and ph[2]["tbs"] == 128, ph
' || fail "fwt's phases in JSON"

"$CORUN" suite check "$top_srcdir/scenarios/suites/hsm-pairs.cfg" | grep -q 'ok (105 mixes, gpu hbm80)' ||
    fail "suite check"
# A suite corun ships, by its name.
(cd "$TMPD" && "$CORUN" suite check hsm-pairs 2>/dev/null) | grep -q 'suites/hsm-pairs.cfg: ok (105 mixes, gpu hbm80)' ||
    fail "suite check hsm-pairs (by name)"
[ "$("$CORUN" suite list "$top_srcdir/scenarios/suites/smqos-pairs.cfg" | grep -c ' MI-CI ')" -eq 36 ] ||
    fail "smqos-pairs: 36 MI-CI mixes expected"
# smqos-triples: each of 6 applications as LS with every pair of the other 5; a CI LS has 2 CI
# and 3 MI others (1 CI-CI, 6 CI-MI, 3 MI-MI pairs), an MI LS 3 CI and 2 MI.
"$CORUN" suite check "$top_srcdir/scenarios/suites/smqos-triples.cfg" |
    grep -q 'ok (60 mixes, gpu smqos24)' || fail "suite check smqos-triples"
"$CORUN" suite list "$top_srcdir/scenarios/suites/smqos-triples.cfg" >"$TMPD/triples.txt"
for want in CI/CI-CI:3 CI/CI-MI:18 CI/MI-MI:9 MI/CI-CI:9 MI/CI-MI:18 MI/MI-MI:3; do
    [ "$(grep -c " ${want%:*} " "$TMPD/triples.txt")" -eq "${want#*:}" ] ||
        fail "smqos-triples: ${want#*:} ${want%:*} mixes expected"
done
[ "$(awk '$3 ~ /\+/ { print $3 }' "$TMPD/triples.txt" | sort -u | wc -l)" -eq 60 ] ||
    fail "smqos-triples: 60 distinct mixes expected"
# `suite list` whole: its heading (singular and plural), each mix's tag, kernels and split.
"$CORUN" suite list "$top_srcdir/tests/data/good/tiny-suite.cfg" >"$TMPD/tiny.txt"
diff -u - "$TMPD/tiny.txt" <<'EOF' || fail "suite list tiny-suite"
tiny (gpu hbm80, 1 epoch of 2000 cycles): 4 mixes
   1  a                    stream+compute
   2  a                    random+compute
   3  b                    stream+random  sms 20:60
   4  b                    cachefit+compute
EOF
[ "$("$CORUN" suite list "$top_srcdir/tests/data/suites/smqos-bino-cp.cfg" | head -1)" = \
    "smqos-bino-cp (gpu smqos24, 200 epochs of 10000 cycles): 1 mix" ] || fail "suite list, one mix"

expect_bad() { # MESSAGE ARGS...
    local want=$1
    shift
    set +e
    "$CORUN" "$@" >"$TMPD/out" 2>"$TMPD/err"
    local rc=$?
    set -e
    [ $rc -eq 2 ] || fail "corun $*: exit $rc, expected 2"
    grep -qF -- "$want" "$TMPD/err" || fail "corun $*: want '$want', got '$(cat "$TMPD/err")'"
}
expect_bad 'corun: kernels show: unknown kernel "pvcc"' kernels show pvcc
expect_bad 'usage: corun kernels list' kernels frob
expect_bad 'corun: kernels list: --gpu is for kernels show' kernels list --gpu hbm80
expect_bad "'bino': expected list or show (one kernel: corun kernels show NAME)" kernels bino
expect_bad 'usage: corun suite check|list SUITE | [list]' suite check
expect_bad '`corun suite list` lists the suites corun ships' suite check

# `suite list` alone: every suite corun ships, a row each with its mixes, GPU and description
# (wrapped to 80 columns); one that does not load is named, and the exit status is 1.
"$CORUN" suite list >"$TMPD/suites" || fail "suite list alone: exit $?"
# `suite` alone lists them too, as `runs`, `lesson` and `kernels` alone list (it was exit 2).
"$CORUN" suite | cmp -s - "$TMPD/suites" || fail "suite alone: $("$CORUN" suite 2>&1)"
for f in "$top_srcdir"/scenarios/suites/*.cfg; do
    name=$(basename "$f" .cfg)
    n=$("$CORUN" suite list "$f" | tail -n +2 | wc -l)
    grep -qE "^  $name +$n mix(es)? on [a-z0-9_]+: " "$TMPD/suites" ||
        fail "suite list alone: no row '$name, $n mixes': $(cat "$TMPD/suites")"
done
grep -qE '^  hsm-pairs +105 mixes on hbm80: HSM section 5' "$TMPD/suites" ||
    fail "suite list alone: hsm-pairs: $(cat "$TMPD/suites")"
[ "$(awk 'length > 80' "$TMPD/suites" | wc -l)" = 0 ] || fail "suite list alone: lines over 80"
mkdir -p "$TMPD/sd/scenarios/suites"
ln -s "$top_srcdir/data" "$TMPD/sd/data"
cp "$top_srcdir/tests/data/good/tiny-suite.cfg" "$TMPD/sd/scenarios/suites/tiny.cfg"
printf 'name = "broken";\n' >"$TMPD/sd/scenarios/suites/broken.cfg"
set +e
CORUN_DATADIR="$TMPD/sd" "$CORUN" suite list >"$TMPD/suites" 2>"$TMPD/err"
rc=$?
set -e
[ $rc = 1 ] && grep -qE '^  broken +\(does not load: `corun suite check broken` says why\)' \
    "$TMPD/suites" && grep -qE '^  tiny +[0-9]+ mix' "$TMPD/suites" ||
    fail "suite list alone, a broken suite: exit $rc $(cat "$TMPD/suites" "$TMPD/err")"
expect_bad "corun: suite: 'frob': expected check or list" suite frob x
# `kernels show --catalog` reads the catalog: a path that does not exist is refused before
# anything is measured, and not made.
expect_bad "corun: kernels show: --catalog $TMPD/typo.db: no such file (expected a catalog" \
    kernels show pvc --catalog "$TMPD/typo.db"
[ ! -e "$TMPD/typo.db" ] || fail "kernels show made the catalog it was given"
# One that is a directory or not a catalog was passed over in silence, as if it held no
# calibration; it is refused too, before the measurement.
expect_bad "corun: kernels show: --catalog $TMPD: catalog $TMPD is a directory" \
    kernels show pvc --catalog "$TMPD"
printf 'not a catalog\n' >"$TMPD/text.db"
expect_bad "corun: kernels show: --catalog $TMPD/text.db: $TMPD/text.db is not a corun catalog" \
    kernels show pvc --catalog "$TMPD/text.db"
[ ! -s "$TMPD/out" ] || fail "kernels show measured before refusing its catalog: $(cat "$TMPD/out")"
expect_bad 'unknown kernel "nope"' calibrate --gpu hbm80 nope
# A name refused is refused before the catalog is opened: it was made, and a warning about it
# came before the refusal.
expect_bad 'corun: calibrate: kernel "atax" has no targets on hbm80; its targets are for smqos24' \
    calibrate --quick atax --catalog "$TMPD/cal.db"
[ ! -e "$TMPD/cal.db" ] || fail "calibrate made its catalog before refusing a kernel"
expect_bad 'unknown kernel "nope"' calibrate --quick nope --catalog "$TMPD/none/cal.db"
! grep -q warning "$TMPD/err" || fail "calibrate warned of its catalog before refusing: $(cat "$TMPD/err")"

# Broken profiles name the file, the line and the valid range.
mkdir -p "$TMPD/d/data/kernels"
ln -s "$top_srcdir/data/gpus" "$TMPD/d/data/gpus"
cp "$top_srcdir"/tests/data/bad_kernels/*.cfg "$TMPD/d/data/kernels/"
export CORUN_DATADIR="$TMPD/d"
# The list leaves out the profiles that do not load and says why (exit 2); its JSON stays
# JSON (the first file by name, bad_phases, left "[," behind).
expect_bad "bad_phases.cfg:9: phases[1].description" kernels list --json
python3 -c 'import json, sys; names = [k["name"] for k in json.load(open(sys.argv[1]))]
assert "stream" in names and "bad_phases" not in names, names' "$TMPD/out" ||
    fail "kernels list --json beside a broken profile: $(head -c 300 "$TMPD/out")"
expect_bad "missing_field.cfg: insts_per_warp: required setting is missing" kernels show missing_field
expect_bad "out_of_range.cfg:6: mem_fraction" kernels show out_of_range
expect_bad "from 0 to 1" kernels show out_of_range
expect_bad 'out_of_range.cfg:8: paper' kernels show out_of_range
expect_bad "bad_phases.cfg:9: phases[1].description: describes the application" kernels show bad_phases
expect_bad "bad_phases.cfg:10: phases[2].mem_fraction" kernels show bad_phases
expect_bad "one_phase.cfg:7: phases: expected a list ( {...}, ... ) of 2 to 5 kernels, got 1" kernels show one_phase
# `corun check` reads a kernel profile wherever it is, with the same messages (it took one for
# a scenario and said only that), the file named where a rule between settings breaks: the
# file and a line of the settings involved, as solo and kernels show say it (they named none).
k="$TMPD/d/data/kernels"
nofit="$k/no_fit.cfg:4: kernel no_fit: no thread block fits on an SM (registers: 255 registers per thread, 0 B of shared memory per block; an SM has 65536 registers and 98304 B) (on GPU hbm80)"
expect_bad "$nofit" solo no_fit
expect_bad "$nofit" kernels show no_fit
expect_bad "out_of_range.cfg:6: mem_fraction" check "$k/out_of_range.cfg"
expect_bad "one_phase.cfg:7: phases: expected a list" check "$k/one_phase.cfg"
expect_bad "$nofit" check "$k/no_fit.cfg"
printf 'tbs = 64;\nwarps_per_tb = 4;\ninsts_per_warp = 500;\nmem_fraction = 0.8;\nsfu_fraction = 0.5;\nfootprint_bytes = 1048576;\n' \
    >"$TMPD/sum.cfg"
expect_bad "$TMPD/sum.cfg:4: mem_fraction + const_fraction + sfu_fraction + fp64_fraction + shared_fraction is 1.3: expected at most 1" \
    check "$TMPD/sum.cfg"
cp "$TMPD/sum.cfg" "$k/sum.cfg"
expect_bad "$k/sum.cfg:4: mem_fraction + const_fraction" solo sum
sed 's/= 0\.8;/= 0.2;/; /sfu_fraction/d' "$TMPD/sum.cfg" >"$TMPD/edge.cfg"
"$CORUN" check "$TMPD/edge.cfg" >"$TMPD/out" 2>&1 || fail "check a good kernel profile: $(cat "$TMPD/out")"
grep -qx "ok (a kernel profile; fits an SM of hbm80; scenarios can name it \"edge\" once it is copied to $TMPD/d/data/kernels/edge.cfg)" \
    "$TMPD/out" || fail "check a kernel profile outside the library: $(cat "$TMPD/out")"
cp "$TMPD/edge.cfg" "$k/edge.cfg"
"$CORUN" check "$k/edge.cfg" >"$TMPD/out" 2>&1 &&
    grep -qx 'ok (a kernel profile; fits an SM of hbm80; scenarios name it "edge")' "$TMPD/out" ||
    fail "check a kernel profile in the library: $(cat "$TMPD/out")"
# barrier_interval 1 made every instruction a barrier: a memory-bound profile issued no load,
# unsaid. Refused with its line, at the top and in a phase.
sed 's/^footprint_bytes/barrier_interval = 1;\nfootprint_bytes/' "$TMPD/edge.cfg" >"$TMPD/b1.cfg"
expect_bad "b1.cfg:5: barrier_interval: 1 would make every instruction a barrier: expected 0 (none) or at least 2" \
    check "$TMPD/b1.cfg"
printf 'phases = ( { barrier_interval = 1; }, { mem_fraction = 0.1; } );\n' |
    cat "$TMPD/edge.cfg" - >"$TMPD/bp.cfg"
expect_bad "bp.cfg:6: phases[0].barrier_interval: 1 would make" check "$TMPD/bp.cfg"
sed 's/barrier_interval = 1/sfu_fraction = 0.9/' "$TMPD/bp.cfg" >"$TMPD/ps.cfg"
expect_bad "ps.cfg:6: phases[0]: mem_fraction + const_fraction + sfu_fraction + fp64_fraction + shared_fraction is 1.1: expected at most 1" \
    check "$TMPD/ps.cfg"
# kernels list calls a profile file of the user's that names no paper "own", not "built-in" (as
# corun's compiled-in kernels are).
rm "$k"/{missing_field,out_of_range,bad_phases,one_phase,sum}.cfg
"$CORUN" kernels list >"$TMPD/list.txt" 2>&1 || fail "kernels list: $(cat "$TMPD/list.txt")"
grep -Eq '^edge +own ' "$TMPD/list.txt" && grep -Eq '^stream +built-in ' "$TMPD/list.txt" ||
    fail "kernels list, sources: $(cat "$TMPD/list.txt")"
# help kernel says where a profile goes.
"$CORUN" help kernel | grep -q "^A kernel profile is the file data/kernels/NAME.cfg of the data directory" ||
    fail "help kernel does not say where a profile goes"

# A suite's mixes are checked as a sweep runs them: each kernel's profile loads and its thread
# block fits an SM of the suite's GPU, said once per kernel at the first mix that names it (check
# said ok, and the sweep failed those mixes, exit 1).
base='tbs = 64; warps_per_tb = 4; insts_per_warp = 500; mem_fraction = 0.2; footprint_bytes = 1048576;'
printf '%s\n' "$base" >"$TMPD/d/data/kernels/myk.cfg"
printf '%s\nmlp = 99;\n' "$base" >"$TMPD/d/data/kernels/mlp99.cfg"
printf '%s\nsmem_per_tb_bytes = 65536;\n' "$base" >"$TMPD/d/data/kernels/bigsmem.cfg"
cat >"$TMPD/su.cfg" <<'EOF'
name = "mine"; gpu = "smqos24"; epochs = 1; epoch_cycles = 1000; tags = ["a"];
mixes = (
  { tag = "a"; kernels = ["myk", "bigsmem"]; sms = [12, 12]; },
  { tag = "a"; kernels = ["myk", "mlp99"]; sms = [12, 12]; },
  { tag = "a"; kernels = ["myk", "stream"]; sms = [12, 12]; },
  { tag = "a"; kernels = ["stream", "bigsmem"]; sms = [12, 12]; }
);
EOF
cat >"$TMPD/su.want" <<EOF
$TMPD/su.cfg:3: mixes[0].kernels[1] (also in 1 later mix): on GPU smqos24: $TMPD/d/data/kernels/bigsmem.cfg:2: kernel bigsmem: no thread block fits on an SM (shared memory: 32 registers per thread, 65536 B of shared memory per block; an SM has 32768 registers and 49152 B)
$TMPD/su.cfg:4: mixes[1].kernels[1]: kernel "mlp99" does not load: $TMPD/d/data/kernels/mlp99.cfg:2: mlp: expected an integer from 1 to 32 (loads), got 99
EOF
for cmd in "suite check" check; do
    # shellcheck disable=SC2086 # the command's words
    expect_bad "mixes[1].kernels[1]" $cmd "$TMPD/su.cfg"
    diff -u "$TMPD/su.want" "$TMPD/err" || fail "corun $cmd of a suite with a bad kernel (above)"
done
echo "kernels, suites and broken profiles ok"
