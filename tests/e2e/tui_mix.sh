#!/usr/bin/env bash
# The mix editor (k) and the views that follow a changing mix. On stream + compute (16 SMs,
# 20 K-cycle epochs) k adds lbm from the kernel picker after two epochs (a filter that matches
# nothing says so), and from the next epoch the kernel table lists lbm
# as C with SMs, the SM map's legend counts it and the event log has the session's "mix" and
# "repartition" events; removing A takes it out of the table and the SM map's legend (the
# chart's keeps it while its earlier points show); removing down to
# the last kernel is refused in a dialog; h sets a priority (a "parameter" event). A replay of
# the saved run shows the final mix at its last epoch and the first mix at epoch 1. At 80x24 a
# three-kernel mix's parameter list scrolls under the highlighted row. Deadlines only, no timings.
. "$(dirname "$0")/../lib.sh"
cfg="$TMPD/pair.cfg"
cat >"$cfg" <<'EOF'
name = "tui mix pair";
gpu = "hbm80";
gpu_overrides = { sms = 16; };
seed = 7;
epochs = 10;
epoch_cycles = 20000;
kernels = (
  { name = "stream"; },
  { name = "compute"; }
);
EOF

# The SM map's legend: the last row of the panel before its bottom edge.
legend() {
    tui_screen | awk -F'││' '/SM map, /{on = 1; next} on && /^└/{exit} on {last = $2} END {print last}'
}
# The NP chart's legend: the last row of the panel before its bottom edge.
chart_legend() {
    tui_screen | awk -F'││' '/NP history/{on = 1; next} on && /^└/{exit} on {last = $1} END {print last}'
}
# Steps one epoch and waits until it is on screen and nothing computes.
step() {
    tui_keys Space
    tui_wait "Epoch $1/10"
    tui_wait "idle: Space steps"
}
# Opens the mix editor.
editor() {
    tui_keys k
    tui_wait "+ add a kernel from the library"
}

tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- tui "$cfg"
tui_wait "Epoch 0/10"
tui_wait "k Mix"
step 1
step 2

tui_keys '?'
tui_wait "Press any key to close this help."
grep -Eq 'k +edit the mix \(add/remove a kernel, priority\)' "$TMPD/screen" ||
    fail "the help does not list k:
$(cat "$TMPD/screen")"
tui_keys x
tui_gone "Press any key to close this help."

# The editor lists the mix: letter, name, priority and SMs now (the even split, 8 each).
editor
grep -Eq '> A stream +low +8 ' "$TMPD/screen" || fail "the editor does not list A stream:
$(cat "$TMPD/screen")"
grep -Eq '  B compute +low +8 ' "$TMPD/screen" || fail "the editor does not list B compute:
$(cat "$TMPD/screen")"
grep -q "No change pending." "$TMPD/screen" || fail "the editor shows a pending change:
$(cat "$TMPD/screen")"

# Enter on a kernel's row opens nothing (only the add row's does).
tui_keys Enter
sleep 1
tui_screen | grep -q "Add a kernel" && fail "Enter on A stream opened the kernel picker"
tui_screen | grep -Eq '> A stream +low +8 ' || fail "Enter on A stream left the editor:
$(tui_screen)"

# u withdraws what is pending: A's removal asked, then undone, leaves nothing pending and
# A in the mix at the next boundary; u with nothing pending says so and returns to the editor.
tui_keys d
tui_wait "Pending: -stream"
tui_keys u
tui_wait "1 pending mix change withdrawn"
tui_wait "No change pending."
tui_keys u
tui_wait "no mix change is pending: nothing to undo"
tui_keys x
tui_wait "+ add a kernel from the library"
tui_wait "No change pending."

# The add row opens the kernel picker: every library kernel with its suite, class and
# description, as `corun kernels list` gives them; typing filters, and a filter that matches
# nothing says so; lbm, first among the matches of "lbm", is asked of the worker.
total=$("$CORUN" kernels list | wc -l)
lbm_line=$("$CORUN" kernels list | awk '$1 == "lbm" {print $2, $3}')
tui_keys Down Down Enter
tui_wait "Add a kernel"
tui_wait "$total of $total"
# A description cut at the edge ends in an ellipsis (it ended mid-word: "3x3 convolution: s").
grep -Eq ' 2dconv +[a-z]+ +[a-z]+ +2D-convolution.*…│' "$TMPD/screen" ||
    fail "2dconv's cut description has no ellipsis:
$(cat "$TMPD/screen")"
tui_keys -l zzz
tui_wait 'no library kernel matches "zzz"'
tui_wait "0 of $total"
tui_keys C-u
tui_keys -l memory-bound
tui_gone "$total of $total"
tui_screen | grep -Eq '^.*> ' || fail "nothing highlighted in the picker"
tui_keys C-u
tui_keys -l lbm
tui_wait "Filter: lbm_"
tui_screen | grep -Eq "> lbm +$(echo "$lbm_line" | awk '{print $1 " +" $2}') +Lattice" ||
    fail "lbm is not first, with its suite and class ($lbm_line):
$(tui_screen)"
tui_keys Enter
tui_wait "Pending: +lbm (applied at the next epoch boundary)"
tui_wait "mix +lbm at next epoch"
tui_wait "lbm joins as kernel C"
tui_keys Escape
tui_gone "+ add a kernel from the library"
tui_kernel_rows | grep -q "lbm" && fail "lbm is in the table before the boundary:
$(tui_kernel_rows)"

# At the boundary lbm joins as C with SMs of its own, and the log has the session's events
# (stream's removal, undone, is not among them).
step 3
tui_gone "mix +lbm at next epoch"
tui_wait "mix: add lbm as kernel 2"
tui_wait "repartition: mix change"
tui_kernel_rows >"$TMPD/rows"
grep -Eq 'C lbm +([1-9][0-9]*|0)\.[0-9]' "$TMPD/rows" || fail "no row for C lbm:
$(cat "$TMPD/rows")"
grep -Eq 'C lbm +0\.0 ' "$TMPD/rows" && fail "C lbm has no SMs:
$(cat "$TMPD/rows")"
grep -q "A stream" "$TMPD/rows" || fail "A left the table:
$(cat "$TMPD/rows")"
legend | grep -Eq 'A [0-9]+ +B [0-9]+ +C [1-9][0-9]*' || fail "the SM map legend does not count C:
$(legend)"

# Removing A: pending until the boundary, then gone from the table and the legend.
editor
tui_keys d
tui_wait "Pending: -stream"
tui_wait "kernel A (stream) leaves"
tui_keys Escape
tui_gone "+ add a kernel from the library"
step 4
tui_wait "mix: remove kernel 0 (stream)"
tui_kernel_rows >"$TMPD/rows"
grep -q "stream" "$TMPD/rows" && fail "A stream is still in the table:
$(cat "$TMPD/rows")"
grep -q "B compute" "$TMPD/rows" && grep -q "C lbm" "$TMPD/rows" || fail "B or C left the table:
$(cat "$TMPD/rows")"
legend >"$TMPD/legend"
grep -Eq '(^| )A [0-9]' "$TMPD/legend" && fail "the SM map legend still lists A:
$(cat "$TMPD/legend")"
grep -Eq 'B 8 +C 8' "$TMPD/legend" || fail "the legend does not split 16 SMs over B and C:
$(cat "$TMPD/legend")"
# The chart still draws A's points of epochs 1-3, so its legend keeps A (it listed B and C only).
chart_legend >"$TMPD/chart"
grep -Eq '^│A B C true' "$TMPD/chart" || fail "the chart legend does not list A, B and C:
$(cat "$TMPD/chart")"

# Down to the last kernel: B leaves at the boundary, so C cannot; the refusal is a dialog.
editor
grep -Eq '> B compute' "$TMPD/screen" || fail "the editor does not start on B:
$(cat "$TMPD/screen")"
tui_keys d
tui_wait "Pending: -compute"
tui_keys Down d
tui_wait "Cannot change the mix"
tui_wait "is the last one in the mix"
tui_keys x
tui_gone "Cannot change the mix"
# Back in the editor (the dialog closed it, and the next keys went to the main screen).
tui_wait "+ add a kernel from the library"
tui_keys Escape
tui_gone "+ add a kernel from the library"
# The log says the change was refused, not "mix unchanged" beside the one pending.
tui_wait "mix change refused: kernel"

# h: C's priority high, which the editor and the log show.
editor
tui_keys Down h
# The log panel is narrow: the whole event is checked in the run file below.
tui_wait "kernels[2].priority=high"
tui_screen | grep -Eq '> C lbm +high +8 ' || fail "the editor does not show C high:
$(tui_screen)"
tui_keys Escape
tui_gone "+ add a kernel from the library"
step 5
tui_kernel_rows >"$TMPD/rows"
[ "$(grep -c '^│' "$TMPD/rows")" = 2 ] && grep -q "C lbm" "$TMPD/rows" ||
    fail "the table is not the heading and C lbm alone:
$(cat "$TMPD/rows")"

# Saved, quit, replayed: the last epoch shows the final mix, epoch 1 the first.
tui_keys s
tui_wait "Record this run"
tui_keys C-u "$TMPD/mix.h5" Enter
tui_wait "later epochs are recorded"
tui_keys x
tui_gone "later epochs are recorded"
tui_keys q
tui_wait "exit=0"

# The run file holds the session's events in full.
CORUN_DATADIR="$top_srcdir" "$CORUN" show "$TMPD/mix.h5" >"$TMPD/shown" ||
    fail "corun show cannot read $TMPD/mix.h5"
for ev in "epoch 2 +mix +add lbm as kernel 2" \
    "epoch 2 +repartition +mix change: even split.*lbm" \
    "epoch 3 +mix +remove kernel 0 \(stream\)" "epoch 4 +parameter +set kernels\[2\]\.priority=high" \
    "epoch 4 +mix +remove kernel 1 \(compute\)"; do
    grep -Eq "$ev" "$TMPD/shown" || fail "the run file has no event '$ev':
$(cat "$TMPD/shown")"
done

tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- replay "$TMPD/mix.h5"
tui_wait "REPLAY"
tui_wait "Epoch 5/5"
tui_wait "Kernels, epoch 5 "
tui_screen | grep -q "k Mix" && fail "k in the key bar of a replay"
tui_kernel_rows >"$TMPD/rows"
grep -q "C lbm" "$TMPD/rows" || fail "the replay's last epoch has no C lbm:
$(cat "$TMPD/rows")"
grep -Eq "stream|compute" "$TMPD/rows" && fail "the replay's last epoch lists removed kernels:
$(cat "$TMPD/rows")"
# k does nothing in a replay: by the time Home is on screen, it would be.
tui_keys k Home
tui_wait "Kernels, epoch 1 "
grep -q "+ add a kernel from the library" "$TMPD/screen" && fail "k opened the editor in a replay:
$(cat "$TMPD/screen")"
tui_kernel_rows >"$TMPD/rows"
grep -q "A stream" "$TMPD/rows" && grep -q "B compute" "$TMPD/rows" ||
    fail "the replay's first epoch does not list A and B:
$(cat "$TMPD/rows")"
grep -q "lbm" "$TMPD/rows" && fail "the replay's first epoch lists lbm:
$(cat "$TMPD/rows")"
legend | grep -Eq 'A 8 +B 8' || fail "the legend of epoch 1 is not A 8 B 8:
$(legend)"
tui_keys q
tui_wait "exit=0"
tui_tmux kill-server

# At 80 columns a longer list of pending changes keeps the changes and shortens the when (it
# was cut mid-word: "(applied at the next epoch boun").
tui_start 80 24 LC_ALL=C.UTF-8 TERM=xterm -- tui "$cfg"
tui_wait "Epoch 0/"
tui_keys k
tui_wait "+ add a kernel from the library"
tui_keys Down Down Enter
tui_wait "Filter:"
# Page Down moves ten entries, Page Up back; Backspace takes a character off the filter; the
# names that start with it come first, Down stops at the last match and Up goes back one.
eleventh=$("$CORUN" kernels list | awk 'NR == 11 {print $1}')
tui_keys NPage
tui_wait "> $eleventh "
tui_keys PPage
tui_wait "> $("$CORUN" kernels list | awk 'NR == 1 {print $1}') "
tui_keys -l teach-cx
tui_wait "Filter: teach-cx_"
tui_keys BSpace
tui_wait "Filter: teach-c_"
tui_wait "> teach-cache "
tui_keys Down Down Down Down
tui_wait "> teach-compute "
tui_keys Up
tui_wait "> teach-chase "
tui_keys Down
tui_wait "> teach-compute "
tui_keys Enter
tui_wait "Pending: +teach-compute (applied at the next epoch boundary)"
tui_keys Enter
tui_wait "Filter:"
tui_keys -l teach-cache
tui_wait "> teach-cache "
tui_keys Enter
tui_wait "Pending: +teach-compute +teach-cache (applied at the next epoch boundary)"
tui_keys Up Up d
tui_wait "Pending: -stream +teach-compute +teach-cache (next epoch)"
tui_keys Escape q
tui_wait "exit=0"
tui_tmux kill-server

# At 80x24 a three-kernel mix's 16 parameters do not fit in the editor's 15 rows (the valid
# values are cut, so the help takes two): the list scrolls under the highlighted row. Up from
# the first row wraps to the last, which comes into view while the first leaves it, the list
# scrolled by one; Down wraps back. Fourteen rows down the list has not moved; one more and it
# has, by one.
sed 's/{ name = "compute"; }/{ name = "compute"; }, { name = "lbm"; }/' "$cfg" >"$TMPD/triple.cfg"
grep -q '"lbm"' "$TMPD/triple.cfg" || fail "no third kernel in $(cat "$TMPD/triple.cfg")"
# The parameter editor's first and last rows on screen are rows 1 and 15 (top) or 2 and 16
# (scrolled by one); WHAT names the step in the failure.
expect_rows() { # top|scrolled WHAT
    local want="epoch_cycles kernels[2].priority" got
    [ "$1" = top ] || want="fairness_threshold kernels[2].qos_target"
    got=$(tui_screen | grep -Eo '[│ ](epoch_cycles|fairness_threshold|kernels\[[0-9]\]\.[a-z_]+) ' |
        tr -d ' │' | sed -n '1p;$p' | paste -sd' ')
    [ "$got" = "$want" ] || fail "$2: rows '$got', expected '$want':
$(tui_screen)"
}
tui_start 80 24 LC_ALL=C.UTF-8 TERM=xterm -- tui "$TMPD/triple.cfg"
tui_wait "Epoch 0/"
tui_keys e
tui_wait "Enter edits"
expect_rows top "the editor's first view"
tui_keys Up
tui_wait "normalized progress to keep (high priority)"
expect_rows scrolled "Up from the first row (the last in view, by one row)"
tui_keys Down
tui_wait "epoch length: how often"
expect_rows top "Down from the last row (back to the top)"
for _ in $(seq 14); do tui_keys Down; done
tui_wait "high: the QoS allocator protects it"
expect_rows top "fourteen rows down (no scroll yet)"
tui_keys Down
tui_wait "normalized progress to keep (high priority)"
expect_rows scrolled "Down onto the last row (scrolled by one)"
tui_keys Escape q
tui_wait "exit=0"
echo "tui mix: lbm joins as C, A leaves, the last kernel stays, priorities; the replay follows; pending changes fit 80 columns; a long parameter list scrolls"
