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

# --catalog: a third session on a catalog of its own reads no references (its cache is empty),
# and its save and its references go there, not to the default catalog (tui, lesson and replay
# had no --catalog: a workbench save's row went away from its runs').
tui_tmux kill-server
c="$TMPD/own.db"
runs_in() { "$CORUN" runs --catalog "$1" query "SELECT count(*) FROM $2" | tail -1; }
# (Saved to ~/own.h5: ~/ is the home directory, as a shell reads it; it was refused.)
mkdir "$TMPD/home"
tui_start 120 40 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$x" HOME="$TMPD/home" -- tui "$cfg" --catalog "$c"
tui_wait "ready: Space steps"
! tui_screen | grep -q "from the trace cache" || fail "an empty --catalog gave references"
tui_keys s
tui_wait "Record this run"
tui_keys C-u
tui_keys -l "~/own.h5"
tui_keys Enter
tui_wait "Any key continues"
tui_keys Space
tui_wait "Epoch 1/10"
tui_wait "idle: Space steps"
tui_keys q
tui_wait "exit=0"
tui_tmux kill-server
[ "$(runs_in "$c" runs)" = 1 ] || fail "--catalog holds $(runs_in "$c" runs) runs, expected 1"
[ "$(runs_in "$c" solo_traces)" = 2 ] || fail "--catalog holds $(runs_in "$c" solo_traces) traces"
[ "$(runs_in "$x/corun/catalog.db" runs)" = 0 ] || fail "the save went to the default catalog"
[ -f "$TMPD/home/own.h5" ] || fail "~/own.h5 is not in the home directory: $(ls "$TMPD" "$TMPD/home")"

# A --catalog that cannot be made is said before the screen starts (it was found at the first
# save), for each workbench command; a missing or empty PATH is a usage mistake.
"$CORUN" run "$cfg" --epochs 1 --out "$TMPD/r1.h5" --catalog "$c" >/dev/null 2>&1 ||
    fail "run --out for the replay below failed"
for cmd in "tui $cfg" "lesson even-split" "replay $TMPD/r1.h5"; do
    tui_start 120 40 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$x" -- \
        $cmd --catalog "$TMPD/no/such/dir/c.db"
    tui_wait "exit=2"
    tui_screen | grep -q "the workbench was not opened" ||
        fail "$cmd: a --catalog in a missing directory: $(tui_screen)"
    tui_tmux kill-server
    for bad in "--catalog" "--catalog="; do
        XDG_DATA_HOME="$x" "$CORUN" $cmd $bad >"$TMPD/out" 2>&1 && fail "$cmd $bad: exit 0"
        grep -q "expected the catalog's file name" "$TMPD/out" || fail "$cmd $bad: $(cat "$TMPD/out")"
    done
done
echo "tui --catalog: saves and references go to it; one that cannot be made is refused"
