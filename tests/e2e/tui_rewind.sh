#!/usr/bin/env bash
# Live rewind: one epoch in, Left goes back to the start and the next step gives epoch 1 again
# (44 rows: the log's window holds the note and, after it, the set-up made again, HSM's choice
# and its model's warning).
# After three epochs under the even split (HSM predicting), Left goes back to the end of epoch 2
# without saving: the re-simulated epoch 2 is the one the run had, and epoch 3 is gone; with
# the fair allocator chosen there, the next epoch 3 differs from the first one (fair moves
# SMs), while a second rewind without a change gives epoch 3 back exactly. A run going on is
# not rewound.
. "$(dirname "$0")/../lib.sh"
cfg="$TMPD/pair.cfg"
sed 's/^epochs = 10;/epochs = 10;\npredictor = "hsm";/' "$top_srcdir/tests/data/good/tui_fast.cfg" \
    >"$cfg"
grep -q 'predictor = "hsm"' "$cfg" || fail "could not make $cfg"
row() { grep -E "^│.A stream " "$TMPD/screen" | head -1; }

tui_start 100 44 LC_ALL=C.UTF-8 TERM=xterm -- tui "$cfg"
tui_wait "Epoch 0/10"
tui_keys Space
tui_wait "Epoch 1/10"
tui_wait "idle: Space steps"
epoch1=$(row)
# One epoch in, Left goes back to the start, and the next step gives epoch 1 again.
tui_keys Left
tui_wait "epoch 0 of the live run"
tui_wait "Epoch 0/10"
tui_keys Space
tui_wait "Epoch 1/10"
tui_wait "idle: Space steps"
[ "$(row)" = "$epoch1" ] || fail "epoch 1 after a rewind to the start differs:
$epoch1
$(row)"
tui_keys Space
tui_wait "Epoch 2/10"
tui_wait "idle: Space steps"
epoch2=$(row)
tui_keys Space
tui_wait "Epoch 3/10"
tui_wait "idle: Space steps"
epoch3=$(row)
[ -n "$epoch2" ] && [ -n "$epoch3" ] || fail "no stream row"

# Rewind, then the same epoch 3 again.
tui_keys Left
tui_wait "epoch 2 of the live run"
tui_wait "Epoch 2/10"
[ "$(row)" = "$epoch2" ] || fail "the rewound epoch 2 differs:
$epoch2
$(row)"
tui_keys Space
tui_wait "Epoch 3/10"
tui_wait "idle: Space steps"
[ "$(row)" = "$epoch3" ] || fail "epoch 3 after a rewind without a change differs:
$epoch3
$(row)"

# Rewind, switch to fair, step: another epoch 3.
tui_keys Left
tui_wait "epoch 2 of the live run"
tui_wait "Epoch 2/10"
tui_choose a fair
tui_wait "Allocator: fair"
tui_keys Space
tui_wait "Epoch 3/10"
tui_wait "idle: Space steps"
tui_wait "repartition: fair"
[ "$(row)" != "$epoch3" ] || fail "epoch 3 under fair is the same as under the even split:
$(row)"

# The three epochs are unsaved, rewinds or not: q asks and counts them all (after a rewind it
# quit at once, the branch's epochs counted as kept in a file). The dialog's s opens the save
# prompt (it only went back).
tui_keys q
tui_wait "quit without saving? y/n"
grep -q "3 epochs of this run are not recorded\." "$TMPD/screen" || fail "q after rewinds:
$(cat "$TMPD/screen")"
tui_keys s
tui_wait "Record this run (and its later epochs) to a new run file:"
tui_keys Escape
tui_gone "Record this run"

# Recording, a rewind: a policy chosen while it re-simulates is refused with a word (it was
# logged as taken, then lost with the run it went to), and the recording's end is said (REC
# went off, unsaid, the file keeping the epoch rewound over).
tui_keys s
tui_wait "Record this run"
tui_keys C-u
tui_keys -l "$TMPD/rec.h5 " # the blank after it is no part of the name (a file "rec.h5 " was made)
tui_keys Enter
tui_wait "Saved"
tui_keys Escape
tui_gone "Saved"
# The next epoch half as long: show's header gives the epochs' lengths (it gave the scenario's).
tui_keys e
tui_wait "Enter edits"
tui_keys Home Enter
tui_wait "epoch_cycles (an integer"
tui_keys C-u 10000 Enter
tui_wait "epoch_cycles           10000"
tui_keys Escape
tui_gone "Enter edits"
tui_keys Space
tui_wait "Epoch 4/10"
tui_wait "idle: Space steps"
tui_keys Left a
tui_wait "Rewinding to the end of epoch 3: choose once it is done"
tui_keys Escape
tui_wait "Recording ended"
tui_wait "rec.h5 keeps the run as it went"
tui_keys Escape
tui_wait "Epoch 3/10"
tui_screen | grep -q "LIVE, REC" && fail "REC after the rewind"
# Right does not undo a rewind: it says what does (it did nothing, unsaid).
tui_keys Right
tui_wait "Right moves through a replay's epochs"
tui_keys Escape
tui_gone "Right moves through"
"$CORUN" show "$TMPD/rec.h5" >"$TMPD/shown" || fail "show rec.h5: exit $?"
grep -q "^ *4 " "$TMPD/shown" || fail "the file lost the epoch rewound over"
grep -q ": 4 epochs of 10000 to 20000 cycles, seed 7" "$TMPD/shown" ||
    fail "show's header: $(head -1 "$TMPD/shown")"

# A run going on (slowest pace: it cannot end first) is not rewound; the r that closes the
# notice also pauses (the message dialog took it).
tui_keys - - - - - - -
tui_wait "Speed: 1 per 5 s"
tui_keys r
tui_wait "Running"
tui_keys Left
tui_wait "Pause first (r)"
tui_keys r
tui_wait "Paused"
tui_keys q # an epoch the run made before the pause is not recorded: q asks then
sleep 1
tui_screen | grep -q "quit without saving" && tui_keys y
tui_wait "exit=0"
echo "rewind: exact epoch 2 and 3 again; fair after a rewind changes epoch 3"
