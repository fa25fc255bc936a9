#!/usr/bin/env bash
# Every broken scenario in tests/data/bad gets its precise message(s) on stderr, nothing on
# stdout, and exit status 2. Each file lists the lines it must produce as "# expect: LINE".
# Also: a missing file, a directory, and (when not root) a file without read permission.
. "$(dirname "$0")/../lib.sh"
cd "$top_srcdir/tests/data/bad"

n=0
for f in *.cfg; do
    set +e
    "$CORUN" check "$f" >"$TMPD/out" 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$f: exit status $rc, expected 2"
    [ ! -s "$TMPD/out" ] || fail "$f: printed on stdout: $(cat "$TMPD/out")"
    grep -q '^# expect: ' "$f" || fail "$f has no '# expect:' line"
    want=$(sed -n 's/^# expect: //p' "$f")
    while IFS= read -r line; do
        grep -qxF -- "$line" "$TMPD/err" || fail "$f: missing message
  want: $line
  got:  $(cat "$TMPD/err")"
    done <<<"$want"
    [ "$(wc -l <"$TMPD/err")" -eq "$(wc -l <<<"$want")" ] \
        || fail "$f: extra messages: $(cat "$TMPD/err")"
    n=$((n + 1))
done
[ $n -ge 10 ] || fail "only $n broken scenarios"

expect_fail() { # FILE MESSAGE
    set +e
    "$CORUN" check "$1" >"$TMPD/out" 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$1: exit status $rc, expected 2"
    grep -qxF -- "$2" "$TMPD/err" || fail "$1: want '$2', got '$(cat "$TMPD/err")'"
}
expect_fail "$TMPD/missing.cfg" \
    "$TMPD/missing.cfg: cannot open: No such file or directory (expected a libconfig file)"
mkdir "$TMPD/dir.cfg"
expect_fail "$TMPD/dir.cfg" \
    "$TMPD/dir.cfg: cannot read: not a regular file (expected a libconfig file)"
if [ "$(id -u)" -ne 0 ]; then
    cp "$top_srcdir/scenarios/default.cfg" "$TMPD/locked.cfg"
    chmod 000 "$TMPD/locked.cfg"
    expect_fail "$TMPD/locked.cfg" "$TMPD/locked.cfg: cannot read: Permission denied"
fi
# A run file where a scenario belongs (`corun tui r.h5` for `corun replay r.h5`): named as an
# HDF5 file with the commands that read one (it was "binary data").
cp "$top_srcdir/tests/data/accel-runfile-chunk-size.h5" "$TMPD/r.h5"
expect_fail "$TMPD/r.h5" "$TMPD/r.h5: cannot read: an HDF5 file, a run file perhaps ('corun replay' opens one in the workbench, 'corun show' prints it); expected a libconfig text file"
# A suite where a scenario belongs: run names what the file is and the command that runs it,
# in one message; check validates it as the suite it is.
refused_once() { # WHAT MESSAGE CORUN-ARGS...: exit 2 and MESSAGE, the one line on stderr
    local what=$1 want=$2 rc=0
    shift 2
    "$CORUN" "$@" >"$TMPD/out" 2>"$TMPD/err" || rc=$?
    [ $rc -eq 2 ] && [ "$(cat "$TMPD/err")" = "$want" ] || fail "$what: exit $rc: $(cat "$TMPD/err")"
}
cp "$top_srcdir/scenarios/suites/hsm-pairs.cfg" "$TMPD/pairs.cfg"
refused_once "run of a suite" "$TMPD/pairs.cfg: a suite (it has mixes and no kernels), not a scenario: \`corun sweep $TMPD/pairs.cfg\` runs its mixes" \
    run "$TMPD/pairs.cfg"
"$CORUN" check "$TMPD/pairs.cfg" >"$TMPD/out" 2>&1 || fail "check of a suite: $(cat "$TMPD/out")"
[ "$(cat "$TMPD/out")" = ok ] || fail "check of a suite: $(cat "$TMPD/out")"
"$CORUN" check hsm-pairs >"$TMPD/out" 2>&1 || fail "check hsm-pairs: $(cat "$TMPD/out")"
# A scenario given to `lesson`: one message naming what it is (it was every scenario setting as
# an unknown lesson setting, then "steps" at line 0); a lesson of one's own given to `run` is
# named by its path, which `corun lesson` takes (its base name finds only corun's lessons).
cp "$top_srcdir/tests/data/good/small.cfg" "$TMPD/pair.cfg"
refused_once "lesson of a scenario" "$TMPD/pair.cfg: a scenario (it has kernels and no steps), not a lesson: \`corun run $TMPD/pair.cfg\` runs it" \
    lesson "$TMPD/pair.cfg"
mkdir -p "$TMPD/my"
cp "$top_srcdir/scenarios/lessons/evicted.cfg" "$TMPD/my/fancy.cfg"
cp "$top_srcdir/scenarios/demo-evict.cfg" "$TMPD/my/" # its scenario, beside it
"$CORUN" check "$TMPD/my/fancy.cfg" >"$TMPD/out" 2>&1 || fail "check my/fancy.cfg: $(cat "$TMPD/out")"
refused_once "run of a lesson" "$TMPD/my/fancy.cfg: a lesson (it has steps and no kernels), not a scenario: \`corun lesson $TMPD/my/fancy.cfg\` opens it" \
    run "$TMPD/my/fancy.cfg"
# A trained model: where the predictors look for one (it said "the data directory's models",
# a directory there is none of: they are in data/models).
cp "$top_srcdir/data/models/hsm-hbm80.cfg" "$TMPD/model.cfg"
refused_once "run of a model" "$TMPD/model.cfg: a trained model (it has model and no kernels), not a scenario: a predictor reads it from the data directory's data/models" \
    run "$TMPD/model.cfg"
# An accelerator application profile: where a scenario names it (each of its settings was an
# unknown scenario setting).
refused_once "run of an application profile" "$top_srcdir/data/apps/asr.cfg: an application profile (it has tasks and no kernels), not a scenario: in the data directory's data/apps (\`corun help accelerator\`), an accelerator scenario names it: applications = ( { name = \"asr\"; ... } );" \
    run "$top_srcdir/data/apps/asr.cfg"

# A setting no name is near points at the help that lists its table, and that help exists
# (they pointed at `corun help DRAM timing`, `corun help cache`, `corun help mix`, ...).
small="$top_srcdir/tests/data/good/small.cfg"
sed 's/{ name = "stream"; }/{ name = "stream"; xyzzy = 1; }/' "$small" >"$TMPD/entry.cfg"
for f in scenarios/suites/hsm-pairs.cfg scenarios/lessons/evicted.cfg tests/data/good/accel-quick.cfg; do
    { cat "$top_srcdir/$f"; echo "xyzzy = 1;"; } >"$TMPD/top-$(basename "$f")"
done
sed 's/{ tag = /{ xyzzy = 1; tag = /' "$top_srcdir/scenarios/suites/hsm-pairs.cfg" >"$TMPD/mix.cfg"
topics=""
while read -r how; do
    set +e
    "$CORUN" $how >/dev/null 2>"$TMPD/err"
    rc=$?
    set -e
    topic=$(sed -n 's/.*xyzzy: unknown .* setting (see `corun help \([a-z]*\)`)$/\1/p' "$TMPD/err" | head -1)
    [ $rc = 2 ] && [ -n "$topic" ] || fail "$how: exit $rc, no help named: $(cat "$TMPD/err")"
    "$CORUN" help "$topic" >/dev/null 2>&1 || fail "$how: \`corun help $topic\` fails"
    topics="$topics $topic"
done <<EOF
check $TMPD/entry.cfg
check $TMPD/top-hsm-pairs.cfg
check $TMPD/mix.cfg
check $TMPD/top-evicted.cfg
check $TMPD/top-accel-quick.cfg
run $small --set xyzzy=1
run $small --set gpu.xyzzy=1
run $small --set gpu.dram.xyzzy=1
run $small --set gpu.dram.timing.xyzzy=1
run $small --set gpu.l1d.xyzzy=1
run $small --set gpu.sfu.xyzzy=1
EOF
for t in scenario gpu suite lesson accelerator; do
    case " $topics " in *" $t "*) ;; *) fail "nothing pointed at \`corun help $t\`:$topics" ;; esac
done

# A GPU preset whose settings are each in range but break a rule between them (l1d's size not
# a multiple of ways x line_bytes; the lines the caches keep) names the preset file and the
# line, in check and run alike: check said only "l1d: size_bytes (1024) must be ...", run the
# scenario's path, neither the file the mistake is in.
mkdir -p "$TMPD/pd/data"
ln -s "$top_srcdir/data/kernels" "$TMPD/pd/data/kernels"
mkdir "$TMPD/pd/data/gpus"
sed 's/^l1d = { size_bytes = 49152;/l1d = { size_bytes = 1024;/' "$top_srcdir/data/gpus/hbm80.cfg" \
    >"$TMPD/pd/data/gpus/odd.cfg"
sed 's/^llc = { size_bytes = 6291456;/llc = { size_bytes = 1073741824;/; s/^sms = 80;/sms = 1024;/' \
    "$top_srcdir/data/gpus/hbm80.cfg" >"$TMPD/pd/data/gpus/vast.cfg"
for gpu in odd vast; do
    case $gpu in
    odd) want="$TMPD/pd/data/gpus/odd.cfg:$(grep -n '^l1d = ' "$TMPD/pd/data/gpus/odd.cfg" | cut -d: -f1): l1d: size_bytes (1024) must be a positive multiple of ways (6) x line_bytes" ;;
    vast) want="$TMPD/pd/data/gpus/vast.cfg: the caches hold 8912896 lines over 1024 SMs: expected at most 4194304 (the model keeps every line in memory; make l1d, l1c or llc smaller)" ;;
    esac
    sed "s/^gpu = \"hbm80\";/gpu = \"$gpu\";/; /^gpu_overrides/d" "$small" >"$TMPD/on-$gpu.cfg"
    for cmd in check run; do
        CORUN_DATADIR="$TMPD/pd" refused_once "$cmd on preset $gpu" "$want" $cmd "$TMPD/on-$gpu.cfg"
    done
done

echo "bad scenarios: $n files and the missing/unreadable cases each gave their message"
