#!/usr/bin/env bash
# The workbench at the edges of replaying. On a run file of no epochs (`branch RUN.h5 0
# --epochs 0 --out`) its chart said "no epochs yet: Space steps one", but a replay steps
# nothing; it now says that b branches it, and once b has, the live branch's chart offers
# Space. o on an accelerator run file was refused with the file's own message, that `replay`
# reads it (this is replay's workbench): it now names the command that opens it. A live
# run's key pressed in a replay is named as pressed. A run file's path wider than its row was
# cut at the window's edge, its file name lost: its end shows now, after an ellipsis; a
# scenario's name too wide for the header was cut unmarked.
. "$(dirname "$0")/../lib.sh"
# A scenario's name wider than the header: cut before the mode, the cut shown.
sed 's/^name = .*/name = "a pair whose name is far too long for the header row at a hundred columns";/' \
    "$top_srcdir/tests/data/good/tui_fast.cfg" >"$TMPD/long-name.cfg"
cfg="$TMPD/long-name.cfg"
export CORUN_DATADIR="$top_srcdir"
"$CORUN" run "$cfg" --epochs 1 --out "$TMPD/r.h5" --catalog "$TMPD/c.db" >/dev/null 2>&1 ||
    fail "the headless run could not record $TMPD/r.h5"
long="$TMPD/a-directory-whose-name-is-long/and-another-one-inside-it-also-long"
mkdir -p "$long"
"$CORUN" branch "$TMPD/r.h5" 0 --epochs 0 --out "$long/empty-run.h5" --catalog "$TMPD/c.db" \
    >/dev/null 2>&1 || fail "branch --epochs 0 could not record $long/empty-run.h5"

sed 's/queries = 30;/queries = 3;/' "$top_srcdir/scenarios/accel-gmm-nn.cfg" >"$TMPD/accel.cfg"
"$CORUN" run "$TMPD/accel.cfg" --out "$TMPD/accel.h5" --catalog "$TMPD/c.db" >/dev/null 2>&1 ||
    fail "the accelerator run could not record $TMPD/accel.h5"

tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$TMPD/xdg" -- replay "$long/empty-run.h5"
tui_wait "REPLAY"
tui_wait "/empty-run.h5  (← → moves, g goes to, b branches)"
grep -q "Run file: …[^ ]*/empty-run.h5  (" "$TMPD/screen" || fail "the run file's row:
$(cat "$TMPD/screen")"
grep -q "Scenario: a pair whose name is far too long for the he… REPLAY$" "$TMPD/screen" ||
    fail "the header's scenario name:
$(cat "$TMPD/screen")"
tui_wait "no epochs in the run file: b branches"
grep -q "Space steps" "$TMPD/screen" && fail "a replay offers Space:
$(cat "$TMPD/screen")"
# A live run's key names itself, not its row of the help ("G g works", though g goes to an
# epoch in a replay).
tui_keys G
tui_wait "G works in a live run"
tui_keys Space
tui_wait "Space works in a live run"
tui_keys b
tui_wait "LIVE" 60
tui_wait "no epochs yet: Space steps one"
tui_keys o
tui_wait "Replay the run file"
tui_keys -l "$TMPD/accel.h5"
tui_keys Enter
tui_wait "Cannot open"
tui_wait "o here opens"
tui_wait "it in the accelerator view"
grep -q "\`replay\`" "$TMPD/screen" && fail "the dialog says replay reads it:
$(cat "$TMPD/screen")"
tui_keys x
tui_gone "Cannot open"
tui_keys q
tui_wait "exit=0"
echo "tui replay of no epochs: b branches it, then Space steps; o of an accelerator run file"
