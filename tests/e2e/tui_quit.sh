#!/usr/bin/env bash
# While a long epoch computes the workbench keeps answering: the progress bar moves, the help
# opens, and q quits with status 0 without waiting for the epoch (the worker abandons it), as
# SIGINT, SIGTERM and SIGHUP do.
# The delays are printed for the record; the deadlines are generous, not timing assertions.
. "$(dirname "$0")/../lib.sh"
cfg="$top_srcdir/tests/data/good/tui_slow.cfg"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
tui_start 100 30 TERM=xterm -- tui "$cfg"
tui_wait "Epoch 0/10"
tui_keys Space
tui_wait "computing epoch 1"

t0=$(now)
tui_keys '?'
tui_wait "Press any key to close this help."
help_s=$(since "$t0")
tui_keys x
tui_gone "Press any key to close this help."

# The point of the test is quitting mid-epoch: the epoch (2 M cycles on 80 SMs) takes many
# seconds, so it is still computing here.
tui_screen | grep -q "computing epoch 1" || fail "the epoch ended before q; lengthen tui_slow.cfg"
t0=$(now)
tui_keys q
tui_wait "exit=0" 20
quit_s=$(since "$t0")
tui_tmux kill-server

# SIGINT, SIGTERM and SIGHUP (the terminal closed) quit the same way mid-epoch: the terminal
# restored (the pane's echo shows) and status 0. Without a handler each would kill corun
# (status 128 + the signal) and leave the terminal in the workbench's modes.
for sig in INT TERM HUP; do
    tui_start 100 30 TERM=xterm -- tui "$cfg"
    tui_wait "Epoch 0/10"
    tui_keys Space
    tui_wait "computing epoch 1"
    pid=$(tui_corun_pid)
    [ -n "$pid" ] || fail "no corun in the pane"
    kill -"$sig" "$pid"
    tui_wait "exit=0" 20
    tui_tmux kill-server
done
echo "tui quit: help shown $help_s s after ?, exit 0 $quit_s s after q, mid-epoch; SIGINT, SIGTERM, SIGHUP quit with 0"
