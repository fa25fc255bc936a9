#!/usr/bin/env bash
# The workbench on a run file: `corun replay` shows REPLAY and the recorded epochs (the same
# numbers as `corun show`); the arrows, Home/End and g move through them (a refused epoch shows
# the range); o with a bad path shows a dialog and keeps the run; b branches after the epoch
# shown and Space steps the branch, whose first new epoch equals the recorded one (the
# simulator is deterministic); q asks when epochs are unsaved; s records the live run to a file
# `corun show` reads; o opens a good file. A missing file fails with status 2 before curses.
. "$(dirname "$0")/../lib.sh"
cfg="$top_srcdir/tests/data/good/tui_fast.cfg"
export CORUN_DATADIR="$top_srcdir"
"$CORUN" run "$cfg" --epochs 3 --out "$TMPD/r.h5" --catalog "$TMPD/c.db" >/dev/null 2>&1 ||
    fail "the headless run could not record $TMPD/r.h5"
"$CORUN" show "$TMPD/r.h5" >"$TMPD/shown"

# "epoch kernel SMs IPC NP BW RBH" of epoch $1, kernel $2, as a regex of its kernel-table row.
# The two columns between NP and BW (predicted NP, error) are dashes without a predictor.
row() {
    awk -v e="$1" -v k="$2" '$1 == e && $2 == k {
        print $3 " +" $4 " +" $5 " +[^ ]+ +[^ ]+ +" $6 " +" $7 }' "$TMPD/shown"
}
expect_epoch() {
    local s c
    s=$(row "$1" stream)
    c=$(row "$1" compute)
    [ -n "$s" ] && [ -n "$c" ] || fail "no epoch $1 in 'corun show'"
    tui_wait "Kernels, epoch $1 "
    tui_screen >"$TMPD/s"
    grep -Eq "A stream +$s" "$TMPD/s" || fail "the stream row of epoch $1 is not '$s':
$(cat "$TMPD/s")"
    grep -Eq "B compute +$c" "$TMPD/s" || fail "the compute row of epoch $1 is not '$c':
$(cat "$TMPD/s")"
}

# A file that cannot be opened: the message on stderr and status 2, before curses starts.
set +e
"$CORUN" replay "$TMPD/missing.h5" >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "replay of a missing file exited $rc, not 2"
grep -q "missing.h5" "$TMPD/err" || fail "no message naming the file: $(cat "$TMPD/err")"
[ ! -s "$TMPD/out" ] || fail "replay of a missing file wrote to the terminal: $(cat -v "$TMPD/out")"

tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$TMPD/xdg" -- replay "$TMPD/r.h5"
tui_wait "REPLAY"
tui_wait "Epoch 3/3"
tui_wait "Run file: $TMPD/r.h5"
tui_wait "(run files keep none)"
expect_epoch 3
# Replay keys in the key bar and help; the live ones (Space, r, s) are absent from both, and
# so is the help's note on r.
grep -q "← → Epoch  g Go to  b Branch  o Open" "$TMPD/s" || fail "no replay key bar:
$(cat "$TMPD/s")"
grep -q "Space Step" "$TMPD/s" && fail "Space in the key bar of a replay"
# A live run's key says where it works (it did nothing, unsaid).
tui_keys Space
tui_wait "Space works in a live run: b"
tui_keys '?'
tui_wait "Press any key to close this help."
for k in '← → +show the previous / next epoch' 'Home End +show the first' 'g +go to an epoch' \
    'b +branch: a live run' 'o +open a run file'; do
    grep -Eq -- "$k" "$TMPD/screen" || fail "the help does not list '$k':
$(cat "$TMPD/screen")"
done
grep -Eq 'Space +step|save: record' "$TMPD/screen" && fail "live keys in the help of a replay:
$(cat "$TMPD/screen")"
# Its notes too: r is not offered, so the live run's note on it is absent.
grep -q "A dash: no value" "$TMPD/screen" || fail "the help of a replay has no notes:
$(cat "$TMPD/screen")"
grep -q "r goes on" "$TMPD/screen" && fail "the live run's note on r in the help of a replay:
$(cat "$TMPD/screen")"
tui_keys x
tui_gone "Press any key to close this help."

# Moving: left once is epoch 2, twice epoch 1; End and Home; right; g refuses 9 and shows the
# range, then takes 2.
tui_keys Left
tui_wait "Epoch 2/3"
tui_keys Left
tui_wait "Epoch 1/3"
expect_epoch 1
# The chart spans the file's 3 epochs, as the header counts them (it spanned the scenario's 10).
tui_wait "NP history, epochs 1-1 of 3"
tui_keys End
tui_wait "Epoch 3/3"
tui_wait "NP history, epochs 1-3 of 3"
tui_keys Home
tui_wait "Epoch 1/3"
# Right: one epoch on, and not past the last (g after it shows that Right was read).
tui_keys Right
tui_wait "Epoch 2/3"
expect_epoch 2
tui_keys End Right g
tui_wait "Go to epoch (1 to 3):"
grep -q "Epoch 3/3" "$TMPD/screen" || fail "Right at the last epoch moved on:
$(cat "$TMPD/screen")"
tui_keys 9 Enter
tui_wait "no epoch '9': enter a number from 1 to 3"
tui_keys BSpace 2 Enter
tui_gone "Go to epoch (1 to 3):"
tui_wait "Epoch 2/3"
expect_epoch 2

# o with a bad path: a dialog with the reason, and the replay stays.
tui_keys o
tui_wait "Replay the run file"
tui_keys -l "$TMPD/nothere.h5"
tui_keys Enter
tui_wait "Cannot open"
tui_wait "nothere.h5: cannot open"
tui_keys x
tui_gone "Cannot open"
tui_wait "Epoch 2/3"
grep -q "REPLAY" "$TMPD/screen" || fail "a bad o left the replay"

# b: live on a branch after epoch 2; its first new epoch is the recorded epoch 3.
tui_keys b
tui_wait "Epoch 2/10" 60
tui_wait "LIVE"
tui_wait "e2 note: branched from"
tui_wait "Space Step"
tui_keys Space
tui_wait "Epoch 3/10"
expect_epoch 3

# q asks on an unsaved live run; n goes back.
tui_keys q
tui_wait "quit without saving? y/n"
tui_keys n
tui_gone "quit without saving?"

# s records the branch to a file: a dialog, then later epochs are recorded too.
tui_keys s
tui_wait "Record this run"
tui_wait "corun-"
# Backspace takes off a whole UTF-8 character (both bytes of the é), so the path is saved.h5.
tui_keys C-u
tui_keys -l "$TMPD/saved.h5é"
tui_wait "saved.h5é_"
tui_keys BSpace
tui_wait "saved.h5_"
tui_keys Enter
tui_wait "Saved"
tui_wait "LIVE, REC"
# The notice needs no answer: the key that closes it acts too (issue 21, defect 17: it was
# eaten), so one Space closes it and steps.
tui_wait "Any key continues (and acts)."
tui_keys Space
tui_gone "Any key continues"
tui_wait "Epoch 4/10"
tui_wait "idle: Space steps"

# o on a good file replays it (the live run is recorded, so nothing asks); q quits at once.
# The live run's recording ends there, and its catalog fails (its path is a directory now).
cat="$TMPD/xdg/corun/catalog.db"
mv "$cat" "$TMPD/cat.moved"
mkdir "$cat"
tui_keys o
tui_wait "Replay the run file"
tui_keys -l "$TMPD/r.h5"
tui_keys Enter
tui_wait "REPLAY"
tui_wait "Epoch 3/3"
# The line is about the live run left, though the replay's log holds it (it read as the
# replay's own); its catalog failed, so it names the command that adds the row later (it
# did not), before the reason. Wrapped in the log (made tall enough): compared without blanks.
tui_resize 100 60
tui_wait "the live run left:"
tui_panel "Event log" "$TMPD/log"
python3 - "$TMPD/log" "the live run left: the run is in $TMPD/saved.h5, but the catalog failed (add it later with \`corun runs add $TMPD/saved.h5\`): catalog $cat is a directory" <<'PY' ||
import sys
text, want = ("".join(s.split()) for s in (open(sys.argv[1]).read(), sys.argv[2]))
sys.exit(want not in text)
PY
    fail "the live run's catalog failed: $(cat "$TMPD/screen")"
rmdir "$cat"
mv "$TMPD/cat.moved" "$cat"
tui_keys q
tui_wait "exit=0"
# The command it named gives the saved run its catalog row as `run --out` gives one, with an
# absolute path (issue 21, defect 13: the workbench's runs had none, and relative paths meant
# nothing elsewhere).
XDG_DATA_HOME="$TMPD/xdg" "$CORUN" runs add "$TMPD/saved.h5" >/dev/null || fail "runs add saved.h5"
(cd / && "$CORUN" runs --catalog "$cat" query \
    "SELECT run_path, epochs FROM runs") >"$TMPD/rows" || fail "runs query: $(cat "$TMPD/rows")"
printf "run_path\tepochs\n%s\t4\n" "$TMPD/saved.h5" | diff - "$TMPD/rows" >&2 ||
    fail "the catalog row of the workbench's run (diff above)"

"$CORUN" show "$TMPD/saved.h5" >"$TMPD/saved" || fail "corun show cannot read the saved run"
grep -q "4 epochs" "$TMPD/saved" || fail "the saved run does not hold 4 epochs:
$(cat "$TMPD/saved")"
grep -q "recording to $TMPD/saved.h5" "$TMPD/saved" || fail "no event for the save:
$(cat "$TMPD/saved")"
[ "$(awk '$1 == 3' "$TMPD/saved")" = "$(awk '$1 == 3' "$TMPD/shown")" ] ||
    fail "epoch 3 of the saved branch differs from the recorded run"
echo "tui replay: move, go to, bad open, branch = recorded epoch 3, quit asks, save, open"
