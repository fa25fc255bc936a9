#!/usr/bin/env bash
# A lesson whose scenario does not load: `corun check LESSON` and `corun lesson LESSON` print
# the scenario's messages and then one naming the lesson, its line and what it expected (an
# accelerator scenario was refused in the scenario's words alone: "`corun check` validates it;
# this command needs a spatial one", said to a teacher running `corun check` on the lesson).
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir"
cat >"$TMPD/accel.cfg" <<'CFG'
title = "accelerated";
summary = "a lesson on an accelerator scenario";
scenario = "accel-gmm-nn.cfg";
steps = ( { title = "one"; run = 1; } );
CFG
want='accel.cfg:3: scenario: "accel-gmm-nn.cfg" is refused (above): expected a spatial scenario'
expect_bad "check of a lesson on an accelerator scenario" "$want" "$CORUN" check "$TMPD/accel.cfg"
grep -q 'accel-gmm-nn.cfg:[0-9]*: mode: an accelerator scenario' "$TMPD/err" ||
    fail "the scenario's own message is gone: $(cat "$TMPD/err")"
expect_bad "a lesson on an accelerator scenario" "$want" "$CORUN" lesson "$TMPD/accel.cfg"
# A spatial scenario beside the lesson with a mistake: its message, then the lesson's line.
printf 'name = "bad"; gpu = "nosuch"; kernels = ( { name = "stream"; } );\n' >"$TMPD/mine.cfg"
sed 's/accel-gmm-nn.cfg/mine.cfg/' "$TMPD/accel.cfg" >"$TMPD/own.cfg"
expect_bad "check of a lesson on a bad scenario" \
    'own.cfg:3: scenario: "mine.cfg" is refused (above)' "$CORUN" check "$TMPD/own.cfg"
grep -q 'mine.cfg:1: gpu' "$TMPD/err" || fail "the scenario's own message is gone: $(cat "$TMPD/err")"
echo "a lesson whose scenario is refused: the scenario's messages, then the lesson's line"
