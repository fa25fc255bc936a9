#!/usr/bin/env bash
# The workbench on an accelerator scenario (issue 19): `corun tui` opens the accelerator view;
# Space steps it (the timeline fills with the processes' kernels and copies), r runs it to the
# end, whose latencies, verdict and utilization are those `corun run` prints; p switches the
# predictor on the fly (prophet, sequential, bubble, prophet-even, none), each forecast the one `corun run
# --predictor` prints; s saves the run to a file whose `corun show` is `corun run`'s output;
# `corun replay` opens that file in the accelerator view with the same figures; q quits; a
# forecast that fails (a warm-up scenario) is reported and the run goes on. With no query
# answered, latencies and the forecast's error are a dash, without a verdict; the first step's
# solo runs are counted on the status line, and s saves nothing before that step has ended.
# Times under a microsecond (the clock, the time simulated, the latency scale) read in three
# significant digits, not 0.000 ms.
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir"
cp "$top_srcdir/tests/data/good/accel-quick.cfg" "$TMPD/quick.cfg"
"$CORUN" run "$TMPD/quick.cfg" --predictor prophet >"$TMPD/prophet" 2>/dev/null || fail "run"
"$CORUN" run "$TMPD/quick.cfg" --predictor prophet --json >"$TMPD/prophet.json" 2>/dev/null ||
    fail "run --json"
"$CORUN" run "$TMPD/quick.cfg" --predictor sequential >"$TMPD/sequential" 2>/dev/null ||
    fail "run --predictor sequential"
"$CORUN" run "$TMPD/quick.cfg" --predictor bubble >"$TMPD/bubble" 2>/dev/null ||
    fail "run --predictor bubble"
"$CORUN" run "$TMPD/quick.cfg" --predictor prophet-even >"$TMPD/even" 2>/dev/null ||
    fail "run --predictor prophet-even"
# The measured row: gmm ls 1 6 P50 P99 SOLO 1.50x VERDICT (R solo); then the forecast rows.
read -r p50 p99 verdict <<<"$(awk '$1 == "gmm" && $2 == "ls" { print $5, $6, $9 }' "$TMPD/prophet")"
[ -n "$verdict" ] || fail "no gmm row in: $(cat "$TMPD/prophet")"
util=$(sed -n 's/^GPU utilization \([0-9.]*\) %.*/\1/p' "$TMPD/prophet")
forecast() { # the predictor's "p50 A  p99 B  err C%" as the view prints it
    awk '$1 == "gmm" && NF == 6 { printf "p50 %s  p99 %s  err %s", $2, $3, $5 }' "$1"
}
fp=$(forecast "$TMPD/prophet")
fs=$(forecast "$TMPD/sequential")
fb=$(forecast "$TMPD/bubble")
fe=$(forecast "$TMPD/even")
[ -n "$fp" ] && [ -n "$fs" ] && [ -n "$fb" ] && [ -n "$fe" ] || fail "no forecast rows"

tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$TMPD/xdg" -- tui "$TMPD/quick.cfg"
tui_wait "LIVE paused"
tui_wait "0/6 done"
tui_wait "forecast none (p: prophet, sequential, bubble, prophet-even)"

# The latency and utilization panels of the finished run against `run --json`'s figures: the
# target, the histogram (a bin per column, the target T and forecast f on its scale), every
# query's measured and forecast latency and their ratio, the GPU's and links' busy time.
check_latency() {
    tui_panel "LS latency vs QoS target" "$TMPD/lat"
    tui_panel Utilization "$TMPD/util"
    python3 - "$TMPD/lat" "$TMPD/util" "$TMPD/prophet.json" <<'PY' || fail "the latency or utilization panel:
$(cat "$TMPD/screen")"
import json, sys
lat, util = (open(f).read().split("\n") for f in sys.argv[1:3])
j = json.load(open(sys.argv[3]))
a, nn = j["applications"]
p = a["predicted"]
target = a["qos_target"] * a["solo_p99_ms"]
assert lat[0].startswith("gmm      6/6 done  p50 %.3f  p99 %.3f ms" % (a["p50_ms"], a["p99_ms"])), lat[0]
want = "target   %.3f ms = %.2fx solo  met %.2fx" % (target, a["qos_target"],
                                                   a["p99_ms"] / a["solo_p99_ms"])
assert a["qos_met"] and lat[1].rstrip() == want, (lat[1], want)
assert lat[2].startswith("prophet  p50 %.3f  p99 %.3f  err %.1f%%  met" % (
    p["p50_ms"], p["p99_ms"], 100 * p["p99_error"])), lat[2]
# The histogram: its scale's end is the largest latency, measured or forecast, or the target,
# plus 5 %; it ends its row's "0 ... TOP ms" and says how many columns the bins take.
assert lat[3].startswith("measured"), lat[3]
top = 1.05 * max([a["p99_ms"], target] + a["latency_ms"] + p["latency_ms"])
end = "%.3f ms" % top
assert lat[4].rstrip().endswith(end) and lat[4][6] == "0", (lat[4], end)
cols = lat[4].rstrip().rindex(end) - 9
assert cols > 20, cols
bins = [0] * cols
for v in a["latency_ms"]:
    bins[min(int(v / top * cols), cols - 1)] += 1
levels = " ▁▂▃▄▅▆▇█"
def level(n):
    return levels[max(1, min(8, int((0.125 + 0.875 * n / max(bins)) * 8 + 0.5)))] if n else " "
assert lat[3][8:8 + cols] == "".join(level(n) for n in bins), (lat[3], bins)
marks = {c: m for m, c in (("f", int(p["p99_ms"] / top * cols)), ("T", int(target / top * cols)))}
assert lat[4][8:8 + cols].rstrip() == "".join(marks.get(c, " ") for c in range(cols)).rstrip(), \
    (lat[4], marks)
# The queries, oldest first (all six fit): number, measured, forecast, forecast / measured.
assert lat[5].startswith("query         measured  forecast (ms)  ratio"), lat[5]
for q, (m, f) in enumerate(zip(a["latency_ms"], p["latency_ms"])):
    want = "gmm      %-4u %9.3f %9.3f       %5.2fx" % (q + 1, m, f, f / m)
    assert lat[6 + q].rstrip() == want, (lat[6 + q], want)
assert not any(r.strip() for r in lat[12:]), lat
# Utilization: each busy fraction in %, the simulated time, cycles, tasks, the batch passes.
for row, key in zip(util, ("gpu_utilization", "pcie_busy_h2d", "pcie_busy_d2h")):
    assert row.rstrip().endswith("%5.1f%%" % (100 * j[key])), (row, key, j[key])
assert [r[:8] for r in util[:3]] == ["GPU busy", "PCIe H2D", "PCIe D2H"], util
assert util[3].rstrip() == "simulated %.3f ms" % j["simulated_ms"], util[3]
assert util[4].rstrip() == "%.2f M cycles, %d tasks" % (j["cycles"] / 1e6, j["tasks_done"]), util[4]
assert util[5].rstrip() == "nn       x1  %d pass%s" % (nn["passes"], "" if nn["passes"] == 1 else "es"), util[5]
assert not any(r.strip() for r in util[6:]), util
PY
}
grep -Eq '^\? help Space step r run p predictor s save ←→ pan Home/End ends \+- zoom q quit *$' "$TMPD/screen" ||
    fail "no live key bar (F1 shown as ?, the arrows as glyphs):
$(cat "$TMPD/screen")"
# At 80x24 the help's texts wrap beside their keys rather than being cut at the frame.
tui_resize 80 24
tui_keys '?'
tui_wait "Press any key to close this help."
tui_wait "prophet-even -> none"
tui_wait "read it)"
# Its frame whole on every row, the text inside it from the second column on.
python3 - "$TMPD/screen" <<'PY' || fail "the help's frame:
$(cat "$TMPD/screen")"
import sys
rows = open(sys.argv[1]).read().split("\n")
top = next(i for i, l in enumerate(rows) if "┌─[ Help: the accelerator view ]" in l)
left = rows[top].index("┌─[ Help")
right = rows[top].index("┐", left)
body = rows[top + 1:next(i for i in range(top + 1, len(rows)) if rows[i][left] == "└")]
assert body and all(r[left] == "│" and r[right] == "│" for r in body), body
assert all(r[left + 1] == " " for r in body), body
assert any(r[left + 2] != " " for r in body), body
assert body[-1][left + 2:].startswith("Press any key to close this help."), body[-1]
# A key at the second column and its text at the fourteenth; a note from the second.
assert any(r[left + 2:].startswith("F1, ?       show the keys") for r in body), body
assert any(r[left + 2:].startswith("Timeline: a lane per process") for r in body), body
PY
tui_keys x
tui_gone "Press any key to close this help."
# and the latency panel's hint and the status line are short enough to be read whole.
tui_wait "forecast none (p picks a predictor)"
tui_wait "ready: Space steps ~0.5 ms of GPU time, r runs, p picks a predictor, ? helps"
# No target in ms before the solo runs (it read "target   0.000 ms").
tui_wait "x solo (ms once it has run alone)"
tui_resize 100 30

# Step: 0.5 ms of the GPU; the batch application's copies appear on its lane.
tui_keys Space
tui_wait "step 1 "
tui_wait "t 0.5"
tui_screen >"$TMPD/s1"
lane=$(grep -A1 -E '^│nn ' "$TMPD/s1" | tail -1)
echo "$lane" | grep -qF ">" || fail "no host-to-device copy on nn's copy lane after a step:
$(cat "$TMPD/s1")"
tui_keys Space
tui_wait "step 2 "

# r runs and r again pauses: once the step under way is done nothing more is stepped.
tui_keys r
tui_wait "running"
tui_keys r
tui_wait "LIVE paused"
step=$(grep -o "step [0-9]* " "$TMPD/screen")
sleep 1.5
tui_screen >"$TMPD/screen"
grep -qF "$step" "$TMPD/screen" && grep -qF "LIVE paused" "$TMPD/screen" ||
    fail "the run went on after the pause ($step):
$(cat "$TMPD/screen")"

# Run to the end: the figures of `corun run`.
tui_keys r
tui_wait "LIVE finished" 120
# The status line follows the run (it said "running" after the run had ended).
tui_wait "the run has ended (s saves it)"
tui_wait "6/6 done  p50 $p50  p99 $p99 ms"
if [ "$verdict" = met ]; then tui_wait "  met "; else tui_wait "VIOLATED"; fi
grep -qF "GPU busy" "$TMPD/screen" && grep -qE "GPU busy .* $util%" "$TMPD/screen" ||
    fail "GPU busy is not $util %:
$(cat "$TMPD/screen")"
grep -qE "█" "$TMPD/screen" || fail "no kernel on the timeline:
$(cat "$TMPD/screen")"

# The predictor, switched on the fly: prophet, sequential, bubble, prophet-even, none, prophet
# again.
tui_keys p
tui_wait "predictor prophet"
tui_wait "prophet  $fp"
tui_keys p
tui_wait "predictor sequential"
tui_wait "sequential  $fs"
tui_keys p
tui_wait "predictor bubble"
tui_wait "bubble  $fb" 300 # its runs beside 0-15 bubbles: seconds, more under sanitizers
tui_keys p
tui_wait "predictor prophet-even"
tui_wait "prophet-even  $fe"
tui_keys p
tui_wait "predictor none"
tui_wait "forecast none"
tui_keys p
tui_wait "prophet  $fp"
check_latency

# The timeline in $TMPD/screen against the tasks of a saved run, exported to DIR: for each
# process a lane of kernels (a block per cell, '.' while it waits for SMs) and one of copies
# ('>' to the GPU, '<' to the host), or one lane for both when the rows are too few; over the
# SPAN ns before END (ns; "now" is the run's end, the window of End); the axis gives its ends.
# Prints how many cells wait for SMs.
check_timeline() { # DIR END SPAN
    tui_panel Timeline "$TMPD/tl"
    python3 - "$TMPD/tl" "$@" <<'PY' || fail "the timeline of $1 over $3 ns to $2:
$(cat "$TMPD/screen")"
import csv, math, sys
rows = open(sys.argv[1]).read().split("\n")[:-1]
run = next(csv.DictReader(open(sys.argv[2] + "/run.csv")))
apps = list(csv.DictReader(open(sys.argv[2] + "/applications.csv")))
tasks = list(csv.DictReader(open(sys.argv[2] + "/tasks.csv")))
now = {"now": float(run["sim_ms [ms]"]) * 1e6}
span = eval(sys.argv[4], now)
t1 = eval(sys.argv[3], now)
t0 = t1 - span
cols = len(rows[0]) - 9
dt = span / cols
labels = []  # the processes: each LS application, each batch instance (NAME#i when several)
for a in apps:
    n = int(a["instances [processes]"]) if a["role"] == "1" else 1
    labels += [a["name"] + ("#%d" % (i + 1) if n > 1 else "") for i in range(n)]
per = 2 if len(rows) - 1 >= 2 * len(labels) else 1
assert len(rows) - 1 >= per * len(labels), (rows, labels)  # no "+N more" here
want = []
for label in labels:
    want.append(list(label.ljust(9) + " " * cols))
    if per == 2:
        want.append(list(" copies".ljust(9) + " " * cols))
def fill(y, start, end, glyph):
    if end <= t0 or start >= t0 + dt * cols:
        return
    c0, c1 = max(0, math.floor((start - t0) / dt)), min(cols, math.ceil((end - t0) / dt))
    for c in range(c0, max(c1, c0 + 1)):
        want[y][9 + c] = glyph
for k in tasks:
    kind, issued = int(k["kind"]), float(k["issued_ns [ns]"])
    start, end = float(k["start_ns [ns]"]), float(k["end_ns [ns]"])
    if end <= t0 or issued >= t1:
        continue
    y = per * int(k["proc"]) + (per == 2 and kind != 1)
    if kind == 1 and start > issued:
        fill(y, issued, start, ".")
    fill(y, start, end, "█" if kind == 1 else ">" if kind == 0 else "<")
want = ["".join(w) for w in want] + [" " * len(rows[0])] * (len(rows) - 1 - len(want))
assert rows[:-1] == want, "\n".join(["got:"] + rows[:-1] + ["want:"] + want)
assert rows[-1].startswith("%.3f ms " % (t0 / 1e6)), (rows[-1], t0)
assert rows[-1].endswith(" %.3f ms" % (t1 / 1e6)), (rows[-1], t1)
assert "█ kernel  . waits for SMs  > to GPU  < to host" in rows[-1], rows[-1]
print(sum(w.count(".") for w in want))
PY
}

# Save: the file `corun show` reads is the run `corun run --predictor prophet` printed ...
tui_keys s
tui_wait "Save to: corun-accel-"
tui_keys C-u
tui_keys -l "$TMPD/saved.h5"
tui_keys Enter
tui_wait "and 6 queries"
tui_wait "the whole run) to $TMPD/saved.h5"
tui_keys q
tui_wait "exit=0"
"$CORUN" show "$TMPD/saved.h5" >"$TMPD/shown" || fail "show saved.h5"
# ... and is in the catalog (the workbench's default one), as `run --out` puts it.
"$CORUN" runs --catalog "$TMPD/xdg/corun/catalog.db" list >"$TMPD/runs" || fail "runs list"
grep -qE "^ +a1 .* $TMPD/saved.h5$" "$TMPD/runs" || fail "the saved run not in the catalog: $(cat "$TMPD/runs")"
cmp -s "$TMPD/prophet" "$TMPD/shown" || fail "the saved run differs from corun run's:
$(diff "$TMPD/prophet" "$TMPD/shown")"

# Replay it: the same figures, REPLAY in the header, the replay keys only.
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- replay "$TMPD/saved.h5"
tui_wait "REPLAY $TMPD/saved.h5"
tui_wait "6/6 done  p50 $p50  p99 $p99 ms"
tui_wait "prophet  $fp"
tui_wait "predictor prophet"
grep -qF "Space step" "$TMPD/screen" && fail "Space in the key bar of a replay"
grep -Eq '^\? help ←→ pan Home/End ends \+- zoom q quit *$' "$TMPD/screen" ||
    fail "a replay's key bar is not the replay keys': $(cat "$TMPD/screen")"
# b, o and s, the spatial replay's branch, open and save, and Space, r and p, a live run's
# step, run and predictor, say what to do instead (they did nothing, without a word).
for k in Space r p; do
    tui_keys "$k"
    tui_wait "$k: a replay shows the run as recorded; corun tui $TMPD/quick.cfg runs it live"
done
tui_keys b
tui_wait "b: an accelerator run has no branch; run its scenario again: corun tui $TMPD/quick.cfg"
tui_keys o
tui_wait "o: this view opens no other file; quit (q), then corun replay OTHER.h5"
tui_keys s
tui_wait "s: nothing to save, this run is its file already; corun export copies it to CSV"
axis=$(grep -E '│[0-9.]+ ms .* ms│' "$TMPD/screen")
tui_keys Home
tui_wait "│0.000 ms"
"$CORUN" export "$TMPD/saved.h5" --csv "$TMPD/csv" 2>/dev/null || fail "export saved.h5"
check_timeline "$TMPD/csv" 2e6 2e6 >/dev/null # Home: the run's first 2 ms
tui_keys End
tui_wait "2.586 ms│"
check_timeline "$TMPD/csv" now 2e6 >/dev/null # End: the last 2 ms, up to the run's end
tui_keys +
tui_wait "1.586 ms"
check_timeline "$TMPD/csv" now 1e6 >/dev/null # zoomed in: 1 ms
tui_keys Left
tui_wait "2.086 ms│"
check_timeline "$TMPD/csv" "now - 1e6 / 2" 1e6 >/dev/null # back by half the width
# Away from both ends, + zooms in about the middle (it kept the right edge): 1.336-1.836 ms.
tui_keys +
tui_wait "1.836 ms│"
check_timeline "$TMPD/csv" "now - 1e6 / 2 - 1e6 / 4" 5e5 >/dev/null
tui_keys '?'
tui_wait "Press any key to close this help."
grep -qF "move the timeline back / on" "$TMPD/screen" || fail "the help lacks the pan keys"
grep -qF "step: half a millisecond" "$TMPD/screen" && fail "a live key in the replay's help"
tui_keys x
tui_gone "Press any key to close this help."
[ -n "$axis" ] || fail "no time axis"
# Zoomed out from Home as far as it goes: 1 ms doubled to the whole run, no more (it went on to
# 512 ms, empty after the run's 2.586 ms); the help opened after the keys shows they were all
# taken.
tui_keys Home - - - - - - - - - - - - '?'
tui_wait "Press any key to close this help."
tui_keys x
tui_gone "Press any key to close this help."
grep -qE "│0\.000 ms .* 2\.586 ms│" "$TMPD/screen" || fail "zoomed out past the run's end:
$(cat "$TMPD/screen")"
check_timeline "$TMPD/csv" now now >/dev/null
# The whole run in view ends at the run's end, as End does: + halves it about that end and -
# shows the whole run again.
tui_keys +
tui_wait "│1.293 ms "
check_timeline "$TMPD/csv" now "now / 2" >/dev/null
tui_keys -
tui_wait "│0.000 ms "
# Too small a terminal: the view makes way for the spatial view's message (it had one of its
# own), takes q and no other key (+ did not zoom in).
tui_resize 70 20
tui_wait "terminal too small (need 80×24, have 70×20)"
tui_wait "q quits"
tui_keys +
tui_resize 100 30
tui_wait "2.586 ms│"
tui_resize 70 20
tui_wait "terminal too small (need 80×24, have 70×20)"
tui_keys q
tui_wait "exit=0"
tui_tmux kill-server

# Three nn instances beside gmm: four processes, a lane each (kernels and copies together),
# labelled nn#1 to nn#3, and kernels that wait for SMs after their launch.
sed 's/instances = 1;/instances = 3;/' "$TMPD/quick.cfg" >"$TMPD/three.cfg"
grep -q 'instances = 3;' "$TMPD/three.cfg" || fail "could not write three.cfg"
# Its file's path too long for the header keeps its end, the file's name, after an ellipsis
# (it was cut at the screen's edge).
long="$TMPD/runs-of-the-accelerator-view-in-a-directory-with-a-long-name"
mkdir "$long" || fail "mkdir $long"
"$CORUN" run "$TMPD/three.cfg" --out "$long/three.h5" >/dev/null 2>&1 || fail "run three.cfg"
"$CORUN" export "$long/three.h5" --csv "$TMPD/three" 2>/dev/null || fail "export three.h5"
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- replay "$long/three.h5"
tui_wait "REPLAY …"
head -1 "$TMPD/screen" | grep -qE "^ corun  .* REPLAY …[^ ]*-long-name/three\.h5$" ||
    fail "a long path in the header: $(head -1 "$TMPD/screen")"
tui_wait "│nn#3 "
dots=$(check_timeline "$TMPD/three" now 2e6)
tui_keys Home
tui_wait "│0.000 ms"
dots=$((dots + $(check_timeline "$TMPD/three" 2e6 2e6)))
[ "$dots" -gt 0 ] || fail "no kernel waits for SMs in three.h5's timeline"
# SIGINT quits as q does (SIGTERM and SIGHUP share its handler): the terminal restored, 0.
pid=$(tui_corun_pid)
[ -n "$pid" ] || fail "no corun in the pane"
kill -INT "$pid"
tui_wait "exit=0"

# A run of queries under a microsecond: the clock, the time simulated, the queries' latencies
# and the latency scale's end read 0.000 ms (the scale's end, in three significant digits, cut
# at the frame's edge). An application named in wide glyphs keeps to its 8 columns, cut
# between glyphs (cut at 8 bytes, a glyph was split; uncut, the name ran into the next column).
# The timeline spans the whole 32 ns run (not 2 ms), so its kernels stand apart.
cat >"$TMPD/tiny.cfg" <<'CFG'
mode = "accelerator"; name = "tiny"; gpu = "k40"; seed = 3;
applications = ( { name = "日本語アプリ"; role = "ls"; qos_target = 2.0; queries = 3; tasks = ( { type = "kernel";
  kernel = { tbs = 1; warps_per_tb = 1; insts_per_warp = 1; mem_fraction = 0.0; footprint_bytes = 128; }; } ); } );
CFG
"$CORUN" run "$TMPD/tiny.cfg" --out "$TMPD/tiny.h5" >/dev/null 2>&1 || fail "run tiny.cfg"
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- replay "$TMPD/tiny.h5"
tui_wait "REPLAY $TMPD/tiny.h5"
tui_wait "3/3 done"
grep -Eq ' t 0\.0000[1-9][0-9]{2} ms ' "$TMPD/screen" &&
    grep -Eq 'simulated 0\.0000[1-9][0-9]{2} ms' "$TMPD/screen" &&
    grep -Eq ' 0\.0000[1-9][0-9]{2} ms│' "$TMPD/screen" &&
    grep -Eq '^│日本語ア 3    0\.0000[1-9][0-9]{2}  ' "$TMPD/screen" ||
    fail "times under a microsecond in the workbench: $(cat "$TMPD/screen")"
grep -qE '^│日本語ア +█' "$TMPD/screen" && grep -q '^│日本語ア 3/3 done  p50 ' "$TMPD/screen" ||
    fail "a name of wide glyphs: $(cat "$TMPD/screen")"
# The first query's kernel, which the core ends at its launch at time 0, is in the timeline's
# first column (a task of no length at the window's start was never drawn), and the
# timeline's axis ends at the run's 32 ns (it read 0.000 ms at both ends).
grep -qE '^│日本語ア █' "$TMPD/screen" || fail "the kernel at time 0 is not drawn: $(cat "$TMPD/screen")"
grep -qE '^│0\.000 ms .* kernel .* 0\.0000[1-9][0-9]{2} ms│$' "$TMPD/screen" ||
    fail "the timeline's axis under a microsecond: $(cat "$TMPD/screen")"
tui_keys q
tui_wait "exit=0"
tui_tmux kill-server

# A truncated copy: refused before the screen starts.
head -c 9000 "$TMPD/saved.h5" >"$TMPD/cut.h5"
expect_bad "replay of a truncated accelerator run file" "cut.h5: truncated" \
    "$CORUN" replay "$TMPD/cut.h5"
# A forecast that cannot be made (a warm-up: the predictors model a common start) says why
# and the run goes on without it; before, the message stopped the run for good.
# With nine queries, the latency panel at 24 rows (the least the workbench takes) shows the
# latest six, with no forecast.
sed -e 's/^seed = 3;/seed = 3; warmup_ms = 0.2;/' -e 's/queries = 6;/queries = 9;/' \
    "$TMPD/quick.cfg" >"$TMPD/warm.cfg"
grep -q 'warmup_ms = 0.2;' "$TMPD/warm.cfg" && grep -q 'queries = 9;' "$TMPD/warm.cfg" ||
    fail "could not write warm.cfg"
"$CORUN" run "$TMPD/warm.cfg" --json >"$TMPD/warm.json" 2>/dev/null || fail "run warm.cfg --json"
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$TMPD/xdg" -- tui "$TMPD/warm.cfg" \
    --catalog "$TMPD/own.db"
tui_wait "LIVE paused"
tui_keys p
tui_wait "no prophet forecast: warmup_ms = 0.2: the predictors model"
grep -qF "STOPPED" "$TMPD/screen" && fail "a failed forecast stopped the run:
$(cat "$TMPD/screen")"
tui_wait "predictor none"
tui_keys Space
tui_wait "step 1 "
tui_keys r
tui_wait "LIVE finished" 120
tui_wait "9/9 done"
tui_wait "gmm      1 "
tui_resize 100 24
tui_gone "gmm      1 "
tui_panel "LS latency vs QoS target" "$TMPD/lat"
python3 - "$TMPD/lat" "$TMPD/warm.json" <<'PY' || fail "the latest queries at 24 rows:
$(cat "$TMPD/screen")"
import json, sys
lat = open(sys.argv[1]).read().split("\n")[:-1]
ms = json.load(open(sys.argv[2]))["applications"][0]["latency_ms"]
assert len(ms) == 9 and len(lat) == 12, (ms, lat)
assert lat[5].startswith("query         measured  forecast (ms)  ratio"), lat[5]
assert [r.rstrip() for r in lat[6:]] == ["gmm      %-4u %9.3f %9s" % (q + 1, ms[q], "–")
                                         for q in range(3, 9)], lat
PY
# --catalog: the save's row goes to the catalog named, not the default one.
tui_keys s
tui_wait "Save to: corun-accel-"
tui_keys C-u
tui_keys -l "$TMPD/warm.h5"
tui_keys Enter
tui_wait "the whole run) to $TMPD/warm.h5"
# A save whose catalog fails (its path a directory now) names the command that adds the row
# later, before the reason (a note cut short keeps it); the command adds it. Quit after it
# says it again whole (the status line is cut at the screen's width).
mv "$TMPD/own.db" "$TMPD/own.moved"
mkdir "$TMPD/own.db"
tui_resize 250 30
tui_keys s
tui_wait "Save to: corun-accel-"
tui_keys C-u
tui_keys -l "$TMPD/warm0.h5"
tui_keys Enter
tui_wait "to $TMPD/warm0.h5, but the catalog failed (add it later with \`corun runs add $TMPD/warm0.h5 --catalog $TMPD/own.db\`): catalog $TMPD/own.db"
tui_keys q
tui_wait "exit=0"
tui_wait "corun: the run was last saved to $TMPD/warm0.h5, but not to the catalog: add it with \`corun runs add $TMPD/warm0.h5 --catalog $TMPD/own.db\`"
rmdir "$TMPD/own.db"
mv "$TMPD/own.moved" "$TMPD/own.db"
"$CORUN" runs --catalog "$TMPD/own.db" list >"$TMPD/runs" || fail "runs list --catalog own.db"
grep -qE "^ +a1 .* $TMPD/warm.h5$" "$TMPD/runs" || fail "warm.h5 not in --catalog's: $(cat "$TMPD/runs")"
"$CORUN" runs add "$TMPD/warm0.h5" --catalog "$TMPD/own.db" | grep -qxF "added $TMPD/warm0.h5 to the catalog as run a2" ||
    fail "runs add warm0.h5, the save whose catalog failed"
"$CORUN" runs --catalog "$TMPD/xdg/corun/catalog.db" list | grep -q "warm.h5" &&
    fail "warm.h5 went to the default catalog too"
tui_tmux kill-server

# Before a query is answered there is no latency: p50 and p99 are a dash (they read "nan"),
# and the forecast has no error and no verdict (it read "err 0.0%  met" of nothing measured),
# before a step, after one that answered none (quick.cfg's first) and in the replay of a run
# saved then, whose `corun show` gives the error as "-" too. s before anything has run
# saves nothing and says why.
no_latency() { # WHAT: the screen shows gmm's 0/6 done with prophet's forecast and no error
    grep -qF "gmm      0/6 done  p50 –  p99 – ms" "$TMPD/screen" &&
        grep -qE "│prophet  p50 [0-9.]+  p99 [0-9.]+  err – +│" "$TMPD/screen" ||
        fail "$1: a latency or a forecast's error or verdict with no query answered:
$(cat "$TMPD/screen")"
}
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$TMPD/xdg2" -- tui "$TMPD/quick.cfg"
tui_wait "LIVE paused"
tui_wait "gmm      0/6 done  p50 –  p99 – ms"
tui_keys s
tui_wait "nothing to save yet: nothing has run (Space steps, r runs)"
grep -qF "Save to:" "$TMPD/screen" && fail "a save prompt before anything has run"
tui_keys p
tui_wait "prophet  p50 "
no_latency "before a step"
tui_keys Space
tui_wait "step 1 "
tui_wait "target   0."
no_latency "after a step"
tui_keys s
tui_wait "Save to: corun-accel-"
tui_keys C-u
tui_keys -l "$TMPD/partial.h5"
tui_keys Enter
tui_wait "and 6 queries ("
tui_wait "part way) to $TMPD/partial.h5"
tui_keys q
tui_wait "exit=0"
tui_tmux kill-server
"$CORUN" show "$TMPD/partial.h5" >"$TMPD/shown" || fail "show partial.h5"
grep -qE "^gmm +ls +1 +0 +- +- +[0-9.]+ +1.50x  no query answered$" "$TMPD/shown" &&
    grep -qE "^gmm +[0-9.]+ +[0-9.]+ +[0-9.]+ +-  (met|violated)$" "$TMPD/shown" ||
    fail "corun show of a run with no query answered: $(cat "$TMPD/shown")"
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- replay "$TMPD/partial.h5"
tui_wait "REPLAY $TMPD/partial.h5"
tui_wait "prophet  p50 "
no_latency "the replay of a run saved part way"
tui_keys q
tui_wait "exit=0"
tui_tmux kill-server

# Solo runs that take a while (400 queries alone first): r says whose solo run is measured and
# how far (it said "running" at t 0.000 ms for minutes), and s saves nothing while they last
# (it saved a run of no task whose solo p99 of 0 had the QoS "not met"); q quits at once.
sed 's/queries = 6;/queries = 400;/' "$TMPD/quick.cfg" >"$TMPD/long.cfg"
grep -q 'queries = 400;' "$TMPD/long.cfg" || fail "could not write long.cfg"
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm XDG_DATA_HOME="$TMPD/xdg3" -- tui "$TMPD/long.cfg"
tui_wait "LIVE paused"
tui_keys r
tui_wait "measuring gmm alone: "
deadline=$((SECONDS + 60))
counted='^measuring gmm alone: [1-9][0-9]* of 400 queries \(its QoS reference\), then all together'
until grep -qE "$counted" "$TMPD/screen"; do
    [ $SECONDS -lt $deadline ] || fail "no count of gmm's solo run's queries:
$(cat "$TMPD/screen")"
    sleep 0.1
    tui_screen >"$TMPD/screen"
done
tui_keys s
tui_wait "nothing to save yet: the first step measures the LS applications alone; s saves after it"
tui_keys Enter
sleep 0.5
tui_screen >"$TMPD/screen"
grep -qF "Save to:" "$TMPD/screen" && fail "a save prompt during the solo runs"
grep -qF "t 0.000 ms  step 0 " "$TMPD/screen" || fail "the solo runs ended too soon to check:
$(cat "$TMPD/screen")"
tui_keys q
tui_wait "exit=0"
if [ -e "$TMPD/xdg3/corun/catalog.db" ]; then
    "$CORUN" runs --catalog "$TMPD/xdg3/corun/catalog.db" list | grep -q "corun-accel-" &&
        fail "a run saved during the solo runs"
fi
echo "accelerator view: stepped, ran to corun run's figures, switched prophet/sequential/bubble/none, saved (show = run), replayed; a failed forecast lets the run go on; no query answered: dashes; solo runs counted, not saved"
