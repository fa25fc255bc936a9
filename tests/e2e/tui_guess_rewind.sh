#!/usr/bin/env bash
# Predict, then reveal, rewound before the class has guessed (lesson even-split, step 1): the
# truth stays hidden, and once the hidden epoch is simulated again the guess form opens by
# itself as it did the first time (after a rewind only g opened it, though the step's text
# says the form comes when the epochs are done).
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- lesson even-split
tui_wait "Your guess, 1 of 4"
tui_keys Escape
tui_gone "Your guess, 1 of 4"
tui_keys Left
tui_wait "rewound to the end of epoch 1" 60
grep -Eq "A lbm +20.0 +[0-9.]+ +\? " "$TMPD/screen" || fail "lbm's NP shows after the rewind:
$(cat "$TMPD/screen")"
tui_keys Space
tui_wait "Epoch 2/12"
tui_wait "Your guess, 1 of 4"
tui_keys Escape
tui_gone "Your guess, 1 of 4"
tui_keys q
tui_wait "quit without saving?"
tui_keys y
tui_wait "exit=0"
echo "tui guess rewound: still hidden, and the form opens again when the epoch is done"
