#!/usr/bin/env bash
# The workbench on an accelerator scenario (issue 19): `corun tui` opens the accelerator view;
# Space steps it (the timeline fills with the processes' kernels and copies), r runs it to the
# end, whose latencies, verdict and utilization are those `corun run` prints; p switches the
# predictor on the fly (prophet, sequential, bubble, prophet-even, none), each forecast the one `corun run
# --predictor` prints; s saves the run to a file whose `corun show` is `corun run`'s output;
# `corun replay` opens that file in the accelerator view with the same figures; q quits; a
# forecast that fails (a warm-up scenario) is reported and the run goes on.
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir"
cp "$top_srcdir/tests/data/good/accel-quick.cfg" "$TMPD/quick.cfg"
"$CORUN" run "$TMPD/quick.cfg" --predictor prophet >"$TMPD/prophet" 2>/dev/null || fail "run"
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
grep -qF "Space step r run p predictor s save" "$TMPD/screen" || fail "no live key bar:
$(cat "$TMPD/screen")"
# At 80x24 the help's texts wrap beside their keys rather than being cut at the frame.
tui_resize 80 24
tui_keys '?'
tui_wait "Press any key to close this help."
tui_wait "prophet-even -> none"
tui_wait "read it)"
tui_keys x
tui_gone "Press any key to close this help."
# and the latency panel's hint and the status line are short enough to be read whole.
tui_wait "forecast none (p picks a predictor)"
tui_wait "ready: Space steps 0.5 ms of GPU time, r runs, p picks a predictor, ? helps"
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

# Run to the end: the figures of `corun run`.
tui_keys r
tui_wait "LIVE finished" 120
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
axis=$(grep -E '│[0-9.]+ ms .* ms│' "$TMPD/screen")
tui_keys Home
tui_wait "│0.000 ms"
tui_keys '?'
tui_wait "Press any key to close this help."
grep -qF "move the timeline back / on" "$TMPD/screen" || fail "the help lacks the pan keys"
grep -qF "step: half a millisecond" "$TMPD/screen" && fail "a live key in the replay's help"
tui_keys x
tui_gone "Press any key to close this help."
[ -n "$axis" ] || fail "no time axis"
tui_keys q
tui_wait "exit=0"

# A truncated copy: refused before the screen starts.
head -c 9000 "$TMPD/saved.h5" >"$TMPD/cut.h5"
expect_bad "replay of a truncated accelerator run file" "cut.h5: truncated" \
    "$CORUN" replay "$TMPD/cut.h5"
# A forecast that cannot be made (a warm-up: the predictors model a common start) says why
# and the run goes on without it; before, the message stopped the run for good.
sed 's/^seed = 3;/seed = 3; warmup_ms = 0.2;/' "$TMPD/quick.cfg" >"$TMPD/warm.cfg"
grep -q 'warmup_ms = 0.2;' "$TMPD/warm.cfg" || fail "could not write warm.cfg"
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- tui "$TMPD/warm.cfg"
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
tui_wait "6/6 done"
tui_keys q
tui_wait "exit=0"
echo "accelerator view: stepped, ran to corun run's figures, switched prophet/sequential/bubble/none, saved (show = run), replayed; a failed forecast lets the run go on"
