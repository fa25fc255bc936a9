#!/usr/bin/env bash
# The event log keeps its newest 256 lines: after 300 epochs (a line each) the oldest kept
# line is the one 255 back, Up goes no further, Enter opens it whole, and a line logged while
# the reader is at the top drops that line and shows the next one in its place.
. "$(dirname "$0")/../lib.sh"
# tui_fast.cfg's GPU and kernels, 300 epochs of 2,000 cycles.
sed -e 's/^epochs = 10;/epochs = 300;/' -e 's/^epoch_cycles = 20000;/epoch_cycles = 2000;/' \
    "$top_srcdir/tests/data/good/tui_fast.cfg" >"$TMPD/ring.cfg"
grep -q '^epochs = 300;' "$TMPD/ring.cfg" && grep -q '^epoch_cycles = 2000;' "$TMPD/ring.cfg" ||
    fail "tui_fast.cfg no longer has the lines this test changes"

tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- tui "$TMPD/ring.cfg"
tui_wait "Epoch 0/300"
tui_keys r
tui_wait "run complete (300 epochs)" 300
tui_wait "Paused"
tui_keys Tab Tab Tab Tab Tab
tui_wait "[ Event log ]"
# The newest lines: the last epoch's, then the run's end; so the 256 kept are e46 to e300
# done (255 lines) and the run's end.
tui_panel "Event log" "$TMPD/log"
# Lines wrap at the panel's width: join them back, one per stamp.
tr -d '\n' <"$TMPD/log" | sed 's/  */ /g; s/ e\([0-9]\)/\ne\1/g' >"$TMPD/lines"
tail -2 "$TMPD/lines" | head -1 | grep -q "^e300 done" || fail "the line before the newest is not e300's:
$(cat "$TMPD/lines")"
tail -1 "$TMPD/lines" | grep -q "^e300 run complete (300 epochs)" ||
    fail "the newest line is not the run's end:
$(cat "$TMPD/lines")"

# open_bottom EXPECTED: Enter opens the bottom line; it must start with EXPECTED.
open_bottom() {
    tui_keys Enter
    tui_wait "Press any key to continue."
    grep -q "$1" "$TMPD/screen" || fail "the bottom line is not '$1':
$(cat "$TMPD/screen")"
    tui_keys x
    tui_gone "Press any key to continue."
}

# Up 300 times: it stops 255 back, on the oldest line kept.
for _ in 1 2 3 4 5 6; do
    tui_keys Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up \
        Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up
done
tui_wait "[ Event log, 255 back ]"
grep -q "256 back" "$TMPD/screen" && fail "Up went past the oldest line"
open_bottom "e46 done [0-9.]* s STP"
tui_keys Down
tui_wait "[ Event log, 254 back ]"
open_bottom "e47 done [0-9.]* s STP"
tui_keys Up
tui_wait "[ Event log, 255 back ]"

# One more epoch at the top: e46's line goes, the view stays 255 back, now on e47's.
tui_keys Space
tui_wait "Epoch 301 (300 planned)"
tui_wait "idle: Space steps"
tui_wait "[ Event log, 255 back ]"
open_bottom "e47 done [0-9.]* s STP"
# And at the bottom the newest line is the new epoch's.
for _ in 1 2 3 4 5 6; do
    tui_keys Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down \
        Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down \
        Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down
done
tui_wait "[ Event log ]"
open_bottom "e301 done [0-9.]* s STP"

tui_keys q
tui_wait "quit without saving? y/n"
tui_keys y
tui_wait "exit=0"
