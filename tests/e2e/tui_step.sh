#!/usr/bin/env bash
# The workbench on a fast scenario: three steps with Space give the same numbers as a headless
# run (the kernel table, the header, the DRAM, System and explain panels); the help lists every
# key; selection and focus drive the explain panel; the event log scrolls back; r runs to the
# scenario's end and pauses; + and - change the pace. Then a four-kernel mix before its first
# epoch: the kernel table's columns, marker and scroll, and the SM map with idle SMs.
. "$(dirname "$0")/../lib.sh"
cfg="$top_srcdir/tests/data/good/tui_fast.cfg"
tui_headless_rows

tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- tui "$cfg"
tui_wait "Epoch 0/10"
tui_wait "Kernels, before the first epoch"
# The DRAM and explain panels, side by side, say so on their first rows.
[ "$(grep -A1 'Explain: A stream' "$TMPD/screen" | tail -1 | grep -o '│no epochs yet' | wc -l)" = 2 ] ||
    fail "no 'no epochs yet' on the DRAM and explain panels' first rows:
$(cat "$TMPD/screen")"

# Three steps: the header counts them and the kernel table shows the headless numbers.
tui_keys Space
tui_wait "Epoch 1/10"
tui_keys Space Space
tui_wait "Epoch 3/10"
tui_wait "idle: Space steps"
tui_rows_match
grep -q "e3 done" "$TMPD/s" || fail "the event log has no third epoch"
grep -q "Explain: A stream" "$TMPD/s" || fail "the explain panel is not on the first kernel"
# The header's cycle count, the DRAM panel (the channels' data-bus utilization, each kernel's
# row-buffer hit rate and bandwidth) and the System panel (STP, ANTT, fairness, power) as the
# headless run's JSON gives them.
"$CORUN" run "$cfg" --epochs 3 --json >"$TMPD/headless.json"
gpu="$top_srcdir/data/gpus/hbm80.cfg"
python3 - "$TMPD/headless.json" "$TMPD/s" "$gpu" <<'PY' || fail "the header, the DRAM or the System panel:
$(cat "$TMPD/s")"
import json, re, sys
epoch = json.load(open(sys.argv[1]))["epochs"][2]
screen = open(sys.argv[2]).read()
m = re.search(r"util mean (\d+)%, max (\d+)%", screen)
assert m and 0 < int(m.group(1)) <= int(m.group(2)) <= 100, m
for letter, k in zip("AB", epoch["kernels"]):
    row = "%s RBH %.2f %6.0f GB/s" % (letter, k["rbh"], k["bandwidth_gbs"])
    assert row in screen, row
# The header: the cycles simulated by the end of the epoch, with thousands separators.
assert "Cycle {:,}  ".format(epoch["start_cycle"] + epoch["cycles"]) in screen, "Cycle"
# The System panel: the run's metrics; the power is the epoch's energy over its time.
for name, key in (("STP", "stp"), ("ANTT", "antt"), ("Fairness", "fairness")):
    assert re.search(r"%s +%.3f│" % (name, epoch[key]), screen), name
energy = re.search(r"Energy +([\d.]+) ([µm]?)J│", screen)
power = re.search(r"Power +([\d.]+) W│", screen)
assert energy and power, (energy, power)
joules = float(energy.group(1)) * {"": 1, "m": 1e-3, "µ": 1e-6}[energy.group(2)]
mhz = float(re.search(r"^core_clock_mhz = ([\d.]+);", open(sys.argv[3]).read(), re.M).group(1))
watts = joules / (epoch["cycles"] / (mhz * 1e6))
assert abs(watts - float(power.group(1))) <= 0.01 * watts + 0.05, (watts, power.group(1))
PY

# The help lists every key, and any key closes it.
tui_keys '?'
tui_wait "Press any key to close this help."
for k in 'F1 \? +show this help' 'Space +step one epoch' ' r +run / pause' '\+ - +run faster' \
    'Tab +focus the next' 'Shift-Tab +focus the previous' '↑ ↓ +select a kernel' 'Ctrl-L +redraw' \
    ' q +quit at once'; do
    grep -Eq -- "$k" "$TMPD/screen" || fail "the help does not list '$k':
$(cat "$TMPD/screen")"
done
# What the numbers mean, NP above 1 and the two SM counts included (issue 21, defect 17).
for k in 'Above 1: faster than its private-mode run' \
    'SMavg: an epoch.s time-weighted SMs; the SM map: owners now \(dot idle, cross gated\)'; do
    grep -Eq -- "$k" "$TMPD/screen" || fail "the help does not say '$k':
$(cat "$TMPD/screen")"
done
grep -q "Kernel  *SMavg" "$TMPD/s" || fail "the kernel table's SM column is not headed SMavg"
tui_keys Escape
tui_gone "Press any key to close this help."
tui_keys F1
tui_wait "Press any key to close this help."
tui_keys x
tui_gone "Press any key to close this help."

# Selection moves the explain panel; with the event log focused the arrows scroll it instead.
tui_wait "[ Kernels, epoch 3 ]"
tui_keys Down
tui_wait "Explain: B compute"
tui_wait "= ${TUI_ROW_COMPUTE##* }"
tui_keys Up
tui_wait "Explain: A stream"
tui_wait "= ${TUI_ROW_STREAM##* }"
# Down past the last kernel stays on it, so one Up is back on the first.
tui_keys Down
tui_wait "Explain: B compute"
tui_keys Down Up
tui_wait "Explain: A stream"
# Enter opens it whole: its last lines say where the loads were served and, in a live run,
# how many of the kernel's TBs an SM holds.
tui_keys Enter
tui_wait "Press any key to continue."
grep -Eq "LLC: [0-9,]+ accesses, [0-9.]+ % missed; DRAM [0-9.]+ GB/s" "$TMPD/screen" &&
    grep -Eq "Resident: [1-9][0-9]* TBs per SM" "$TMPD/screen" || fail "the explain window lacks the LLC or TB lines:
$(cat "$TMPD/screen")"
# Its numbers are the epoch's: the private-mode cycles are NP times the epoch's cycles, and
# the IPC alone on the 16 SMs the instructions over them.
python3 - "$TMPD/headless.json" "$TMPD/screen" <<'PY' || fail "the explain window's numbers:
$(cat "$TMPD/screen")"
import json, re, sys
epoch = json.load(open(sys.argv[1]))["epochs"][2]
k = epoch["kernels"][0]
screen = open(sys.argv[2]).read()
num = lambda s: int(s.replace(",", ""))
m = re.search(r"NP true = private / shared = ([\d,]+) / ([\d,]+) = ([\d.]+)", screen)
assert m, "NP line"
private = k["np"] * epoch["cycles"]
assert abs(num(m.group(1)) - private) <= 1 and num(m.group(2)) == epoch["cycles"], m.groups()
assert m.group(3) == "%.3f" % k["np"], m.group(3)
assert re.search(r"Instructions %s\b" % format(k["instructions"], ","), screen), "Instructions"
assert "Shared: %.1f SMs, IPC %.1f" % (k["sms"], k["ipc"]) in screen, "Shared"
assert "Alone: 16 SMs, IPC %.1f" % (k["instructions"] / private) in screen, "Alone"
PY
tui_keys x
tui_gone "Press any key to continue."
tui_keys Tab
tui_wait "[ NP history"
tui_keys BTab
tui_wait "[ Kernels"
tui_keys Tab Tab Tab Tab Tab
tui_wait "[ Event log ]"
tui_keys Up
tui_wait "[ Event log, 1 back ]"
grep -q "Explain: A stream" "$TMPD/screen" || fail "Up in the event log changed the selection"
# One back, the third epoch's line is below the view and the second's at its bottom; a line
# logged meanwhile (a fourth epoch) keeps the view where it is; Enter opens its bottom line.
grep -q "e3 done" "$TMPD/screen" && fail "one back, the newest line still shows:
$(cat "$TMPD/screen")"
grep -q "e2 done" "$TMPD/screen" || fail "one back, the line before the newest is not shown:
$(cat "$TMPD/screen")"
tui_keys Space
tui_wait "Epoch 4/10"
tui_wait "[ Event log, 2 back ]"
tui_keys Enter
tui_wait "Press any key to continue."
grep -Eq "e2 done [0-9.]+ s STP" "$TMPD/screen" || fail "Enter did not open the bottom line:
$(cat "$TMPD/screen")"
tui_keys x
tui_gone "Press any key to continue."
tui_keys Down
tui_wait "[ Event log, 1 back ]"
tui_keys Down
tui_wait "[ Event log ]"
tui_wait "e4 done"

# r runs to the scenario's last epoch and pauses by itself.
tui_keys r
tui_wait "Epoch 10/10"
tui_wait "run complete (10 epochs)"
tui_wait "Paused"

# The pace: four steps slower is one epoch a second, one faster is two.
tui_keys - - - -
tui_wait "Speed: 1/s"
tui_keys +
tui_wait "Speed: 2/s"
tui_wait "speed 2/s"
# Stepping through paces leaves one line in the log, not one a step.
[ "$(grep -c 'speed [0-9]' "$TMPD/screen")" = 1 ] || fail "one log line per pace step:
$(cat "$TMPD/screen")"

# Past the scenario's end r goes on until paused, and a pause holds; the header says how many
# were planned rather than "Epoch 11/10" (issue 21, defect 17).
tui_keys r
tui_wait "Running"
tui_wait "running until paused"
tui_wait "Epoch 11 (10 planned)"
tui_keys r
tui_wait "Paused"
tui_wait "idle: Space steps"
epoch=$(grep -o 'Epoch [0-9]* (10 planned)' "$TMPD/screen")
sleep 1.5
tui_screen | grep -qF "$epoch" || fail "epochs went on after the pause ($epoch):
$(tui_screen)"

# The epochs are not recorded: q asks first, y quits.
tui_keys q
tui_wait "quit without saving? y/n"
tui_keys y
tui_wait "exit=0"
tui_tmux kill-server

# The kernel table before the first epoch: each kernel's SMs (4, 4, 4 and 2 of the 16), the
# name column as wide as the longest name and a space (14 for teach-compute, so SMavg,
# right-aligned in 6 columns after it, starts 15 columns after "Kernel"), the marker on the
# selected row; at 100x24 it holds three of the four kernels and scrolls to keep the selected
# one in view (as far down as it needs, no further: from the top while the selected row fits
# there). The SM map: a cell per SM in one row, the two left over idle, and the legend on its
# last row, whole.
# tui_fast.cfg's GPU, seed and epochs, with these kernels.
{ sed '/^kernels = (/,$d' "$cfg" && cat <<'CFG'; } >"$TMPD/four.cfg"
kernels = (
  { name = "teach-compute"; sms = 4; },
  { name = "stream"; sms = 4; },
  { name = "random"; sms = 4; },
  { name = "compute"; sms = 2; }
);
CFG
tui_start 100 24 LC_ALL=C.UTF-8 TERM=xterm -- tui "$TMPD/four.cfg"
# The title says which rows show (3 of 4 showed, unsaid).
tui_wait "Kernels 1-3 of 4, before the first epoch"
tui_kernel_rows >"$TMPD/table"
[ "$(awk 'NR == 1 { print index($0, "SMavg") - index($0, "Kernel") }' "$TMPD/table")" = 15 ] ||
    fail "the name column is not 14 wide: $(cat "$TMPD/table")"
expect_table() { # the rows wanted after the titles, one a line: marker, letter, name, SMs
    local want=$1
    tui_kernel_rows >"$TMPD/table"
    [ "$(tail -n +2 "$TMPD/table" | sed -E 's/^│(.)(.) ([a-z-]+) +([0-9]+) .*/\1\2 \3 \4/')" = "$want" ] ||
        fail "the kernel table, expected
$want
got
$(cat "$TMPD/table")"
}
expect_table $'>A teach-compute 4\n B stream 4\n C random 4'
python3 - "$TMPD/screen" <<'PY' || fail "the SM map:
$(cat "$TMPD/screen")"
import sys
screen = open(sys.argv[1]).read().split("\n")
top = next(i for i, l in enumerate(screen) if "SM map, 16 SMs, now" in l)
x0 = screen[top].index("┌─ SM map")
x1 = screen[top].index("┐", x0)
panel = []
for line in screen[top + 1:]:
    if line[x0] == "└":
        break
    panel.append(line[x0 + 1:x1].rstrip())
assert panel[0] == "AAAABBBBCCCCDD··", panel
assert all(not row for row in panel[1:-1]), panel
# "· 2 idle" would not fit in the panel's 23 columns (it was cut to "idl"): the glyph says it.
assert panel[-1] == "A 4 B 4 C 4 D 2 · 2", panel
PY
tui_keys Down Down Down
tui_wait ">D compute"
tui_wait "Kernels 2-4 of 4, before the first epoch"
expect_table $' B stream 4\n C random 4\n>D compute 2'
tui_keys Up
tui_wait ">C random"
expect_table $' A teach-compute 4\n B stream 4\n>C random 4'
tui_keys Up Up
tui_wait ">A teach-compute"
expect_table $'>A teach-compute 4\n B stream 4\n C random 4'
tui_keys q
tui_wait "exit=0"
tui_tmux kill-server
# 140 columns wide, the SM map's legend has room to say "idle".
tui_start 140 24 LC_ALL=C.UTF-8 TERM=xterm -- tui "$TMPD/four.cfg"
tui_wait "Kernels 1-3 of 4, before the first epoch"
grep -q "│A 4 B 4 C 4 D 2 · 2 idle *│" "$TMPD/screen" || fail "the SM map's legend at 140 columns:
$(cat "$TMPD/screen")"
tui_keys q
tui_wait "exit=0"
echo "tui step: 3 epochs match the headless run; help, selection, focus, log, run, pause, pace;" \
    "a four-kernel table and SM map"
