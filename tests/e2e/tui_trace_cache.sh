#!/usr/bin/env bash
# The workbench shares the private-mode references through the catalog's trace cache, as
# `corun run` does: a first session on an empty catalog simulates them and stores them when it
# quits; a second reads them (its event log says so) and shows the numbers of a headless run
# that simulated its own.
. "$(dirname "$0")/../lib.sh"
cfg="$top_srcdir/tests/data/good/tui_fast.cfg"
x="$TMPD/xdg"
mkdir -p "$x" "$TMPD/alone"
traces() { XDG_DATA_HOME="$x" "$CORUN" runs query "SELECT count(*) FROM solo_traces" | tail -1; }

tui_headless_rows XDG_DATA_HOME="$TMPD/alone"

tui_start 120 40 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$x" -- tui "$cfg"
tui_wait "Epoch 0/10"
tui_wait "ready: Space steps"
! tui_screen | grep -q "from the trace cache" || fail "an empty catalog gave references"
tui_keys Space Space
tui_wait "Epoch 2/10"
tui_wait "idle: Space steps"
tui_keys q
tui_wait "quit without saving? y/n"
tui_keys y
tui_wait "exit=0"
tui_tmux kill-server
[ "$(traces)" = 2 ] || fail "the first session left $(traces) traces in the catalog, expected 2"

# The second session goes past what the first simulated: the third epoch extends them.
tui_start 120 40 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$x" -- tui "$cfg"
tui_wait "2 references from the trace cache"
tui_keys Space Space Space
tui_wait "Epoch 3/10"
tui_wait "idle: Space steps"
tui_rows_match
tui_keys q
tui_wait "quit without saving? y/n"
tui_keys y
tui_wait "exit=0"
echo "tui trace cache: stored by the first session, read by the second, same numbers"
