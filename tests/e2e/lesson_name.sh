#!/usr/bin/env bash
# `corun lesson NAME.cfg` with no such file here opens the lesson corun ships, as `corun check
# NAME.cfg` checks it (it was refused with "cannot open", though check said ok to the same
# name); a name near one is suggested. A path stays a path.
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir"
cd "$TMPD"
# Without a terminal the workbench is refused after the file is found: the note says which.
expect_bad "lesson hsm-fair.cfg" "a lesson needs a terminal" "$CORUN" lesson hsm-fair.cfg
grep -q "^corun: hsm-fair.cfg: no such file here; using .*/scenarios/lessons/hsm-fair.cfg$" \
    "$TMPD/err" || fail "lesson hsm-fair.cfg: $(cat "$TMPD/err")"
"$CORUN" check hsm-fair.cfg >/dev/null 2>&1 || fail "check hsm-fair.cfg"
expect_bad "lesson hsm-fari.cfg" "did you mean hsm-fair.cfg?" "$CORUN" lesson hsm-fari.cfg
expect_bad "lesson ./hsm-fair.cfg" "^corun: lesson: ./hsm-fair.cfg: cannot open" \
    "$CORUN" lesson ./hsm-fair.cfg
echo "lesson NAME.cfg: the shipped lesson when there is no such file here"
