#!/usr/bin/env bash
# Predictors belong to a mode: `corun help predictors` lists the spatial ones and, in a
# section of their own, the accelerator ones (prophet, sequential, bubble); `run --predictor`
# with an accelerator predictor on a spatial scenario, a spatial predictor on an accelerator
# scenario, or an unknown name there, is refused with exit status 2 and a message naming what
# that scenario accepts; a warm-up scenario is refused a predictor before it is simulated; a
# forecast failing after the run keeps the measured run.
. "$(dirname "$0")/../lib.sh"

"$CORUN" help predictors >"$TMPD/help" || fail "help predictors: exit $?"
python3 - "$TMPD/help" <<'PY' || fail "help predictors: $(cat "$TMPD/help")"
import re, sys
text = open(sys.argv[1]).read()
spatial, accel = text.split("\nAccelerator scenarios", 1)
for name in ("hsm", "dase"):
    assert re.search(r"^  %s +\S" % name, spatial, re.M), name
for name in ("prophet", "sequential", "bubble"):
    assert re.search(r"^  %s +\S" % name, accel, re.M), name
    assert not re.search(r"^  %s +" % name, spatial, re.M), name
assert not re.search(r"^  hsm +", accel, re.M)
PY

cat >"$TMPD/accel.cfg" <<'CFG'
mode = "accelerator"; name = "pos alone"; gpu = "k40";
applications = ( { name = "pos"; role = "ls"; qos_target = 1.5; queries = 2; } );
CFG
expect_refused() { # what-the-message-must-hold command...
    local want=$1
    shift
    set +e
    "$CORUN" "$@" >"$TMPD/out" 2>"$TMPD/err"
    local rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$*: exit $rc (expected 2): $(cat "$TMPD/err")"
    grep -qF -- "$want" "$TMPD/err" || fail "$*: message lacks '$want': $(cat "$TMPD/err")"
    [ ! -s "$TMPD/out" ] || fail "$*: printed a result: $(cat "$TMPD/out")"
}
expect_refused "that predictor is for spatial scenarios; an accelerator scenario takes none, prophet, sequential, bubble, prophet-even (\`corun help predictors\`)" \
    run "$TMPD/accel.cfg" --predictor hsm
expect_refused "unknown predictor; an accelerator scenario takes none, prophet, sequential, bubble, prophet-even (\`corun help predictors\`)" \
    run "$TMPD/accel.cfg" --predictor oracle2
for p in prophet sequential bubble; do
    expect_refused "--predictor $p: that predictor is for accelerator scenarios" \
        run "$top_srcdir/scenarios/demo-pair.cfg" --predictor $p --epochs 1
    grep -qF "is spatial and takes none, oracle, hsm, dase, asm, themis (\`corun help predictors\`)" \
        "$TMPD/err" || fail "the spatial names are not listed: $(cat "$TMPD/err")"
done
# A spatial scenario file naming an accelerator predictor: check and run say the same.
sed 's/^kernels/predictor = "prophet";\nkernels/' "$top_srcdir/scenarios/demo-pair.cfg" >"$TMPD/sp.cfg"
grep -q '^predictor = "prophet";' "$TMPD/sp.cfg" || fail "could not write sp.cfg"
expect_refused 'predictor "prophet" is for accelerator scenarios (mode = "accelerator"); this scenario is spatial; known: oracle, hsm' \
    check "$TMPD/sp.cfg"
cp "$TMPD/err" "$TMPD/check.err"
expect_refused 'predictor "prophet" is for accelerator scenarios' run "$TMPD/sp.cfg" --epochs 1
cmp -s "$TMPD/check.err" "$TMPD/err" || fail "check and run say different things: $(cat "$TMPD/err")"
"$CORUN" run "$TMPD/accel.cfg" --predictor none >"$TMPD/out" 2>"$TMPD/err" \
    || fail "--predictor none on an accelerator scenario: $(cat "$TMPD/err")"
# A warm-up (the batch applications first) is measured, not predicted: refused before any
# simulation with --predictor, run without it.
cat >"$TMPD/warm.cfg" <<'CFG'
mode = "accelerator"; name = "copies after a warm-up"; gpu = "k40"; warmup_ms = 0.01;
applications = (
  { name = "q"; role = "ls"; qos_target = 2.0; queries = 2; tasks = ( { type = "h2d"; bytes = 6000; } ); },
  { name = "b"; role = "batch"; tasks = ( { type = "h2d"; bytes = 60000; } ); } );
CFG
"$CORUN" check "$TMPD/warm.cfg" >/dev/null || fail "check of a warm-up scenario"
expect_refused "--predictor prophet: warmup_ms = 0.01: the predictors model" \
    run "$TMPD/warm.cfg" --predictor prophet
"$CORUN" run "$TMPD/warm.cfg" >"$TMPD/out" 2>"$TMPD/err" || fail "warm-up run: $(cat "$TMPD/err")"
grep -qE '^q +ls +1 +2 ' "$TMPD/out" || fail "warm-up run: $(cat "$TMPD/out")"
# Batch instances started out of step (stagger_ms) likewise; an LS application has none.
sed -e 's/ warmup_ms = 0.01;//' -e 's/role = "batch";/role = "batch"; instances = 2; stagger_ms = 0.02;/' \
    "$TMPD/warm.cfg" >"$TMPD/stagger.cfg"
"$CORUN" check "$TMPD/stagger.cfg" >/dev/null || fail "check of a staggered scenario"
expect_refused "--predictor bubble: b: stagger_ms = 0.02: the predictors model" \
    run "$TMPD/stagger.cfg" --predictor bubble
"$CORUN" run "$TMPD/stagger.cfg" >"$TMPD/out" 2>"$TMPD/err" || fail "staggered run: $(cat "$TMPD/err")"
grep -qE '^q +ls +1 +2 ' "$TMPD/out" || fail "staggered run: $(cat "$TMPD/out")"
sed 's/role = "ls";/role = "ls"; stagger_ms = 1;/' "$TMPD/warm.cfg" >"$TMPD/ls-stagger.cfg"
expect_refused "ls-stagger.cfg:3: applications[0].stagger_ms: only a batch application has it" \
    check "$TMPD/ls-stagger.cfg"
# A forecast that fails after the run (the bubble needs a free place beside the LS application,
# and 16 applications leave none): the measured run is printed and recorded, not lost; exit 1.
{
    echo 'mode = "accelerator"; name = "sixteen"; gpu = "k40"; applications = ('
    for i in $(seq 1 15); do
        echo "{ name = \"b$i\"; role = \"batch\"; tasks = ( { type = \"d2h\"; bytes = 6000; } ); },"
    done
    echo '{ name = "q"; role = "ls"; qos_target = 2.0; queries = 2; tasks = ( { type = "h2d"; bytes = 6000; } ); } );'
} >"$TMPD/sixteen.cfg"
set +e
"$CORUN" run "$TMPD/sixteen.cfg" --predictor bubble --out "$TMPD/sixteen.h5" >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 1 ] && grep -qF "the run is measured (above) but its bubble forecast failed" "$TMPD/err" &&
    grep -qE '^q +ls +1 +2 ' "$TMPD/out" && [ -s "$TMPD/sixteen.h5" ] ||
    fail "a failed forecast lost the run: $rc $(cat "$TMPD/out" "$TMPD/err")"
echo "predictors: help lists both modes' predictors; a predictor of the other mode is refused with exit 2"
