#!/usr/bin/env bash
# A screen that explains itself. A replay of a run recorded with a predictor and the fair
# allocator shows what the live view shows: the Class column and the predictor's explain
# panel (kept in the run file since schema 2.1). The chart has a legend and spans the
# scenario's epochs. Enter on the explain panel opens every line of it; Enter on the event log
# opens the allocator's reason whole, and at 80x24 the log wraps it instead of cutting it.
. "$(dirname "$0")/../lib.sh"
cfg="$top_srcdir/tests/data/good/tui_fast.cfg"
export CORUN_DATADIR="$top_srcdir"
"$CORUN" run "$cfg" --epochs 4 --predictor hsm --allocator fair --out "$TMPD/r.h5" \
    --catalog "$TMPD/c.db" --explain >"$TMPD/run" 2>&1 || fail "the headless run failed:
$(cat "$TMPD/run")"
# The reason of the last repartition, as the run printed it.
reason=$(sed -n 's/.*\[repartition\] //p' "$TMPD/run" | tail -1)
[ -n "$reason" ] || fail "the fair allocator never repartitioned:
$(cat "$TMPD/run")"
# The last line of HSM's explanation of kernel A in epoch 4.
whatif=$(awk '/^ +4 +stream/ {e = 1} e && /explain stream/ {x = 1} x && /what-if/ {print; exit}' \
    "$TMPD/run" | sed 's/^ *//')
[ -n "$whatif" ] || fail "no what-if line in the explanation:
$(cat "$TMPD/run")"

tui_start 80 24 LC_ALL=C.UTF-8 TERM=xterm -- replay "$TMPD/r.h5"
tui_wait "REPLAY"
tui_wait "Epoch 4/4"
tui_screen >"$TMPD/s"
grep -q "NP history, epochs 1-4 of 4" "$TMPD/s" || fail "the chart does not span the file's epochs:
$(cat "$TMPD/s")"
grep -q "A B true  a b predicted" "$TMPD/s" || fail "no legend under the chart:
$(cat "$TMPD/s")"
grep -Eq "A stream .* mem " "$TMPD/s" || fail "no Class in the replay:
$(cat "$TMPD/s")"
grep -q "no explanation kept\|not recorded" "$TMPD/s" && fail "the replay lost the explanation:
$(cat "$TMPD/s")"
grep -q "NP true = private / shared" "$TMPD/s" || fail "no explain panel:
$(cat "$TMPD/s")"
# The log wraps the reason: its words are all on screen, none cut at the panel's edge.
log=$(cut -c25-52 "$TMPD/s" | sed -n '/Event log/,$p' | tr -d '│' | tr -s ' \n' ' ')
case "$log" in *"${reason##* }"*) ;; *) fail "the reason's last word is not in the log panel:
$(cat "$TMPD/s")" ;; esac

# Enter on the explain panel: every line, the last included.
tui_keys Tab Tab Tab Tab Tab Tab
tui_wait "[ Explain: A stream ]"
tui_keys Enter
tui_wait "Press any key to continue."
tui_wait "$whatif"
# Then where the kernel's loads were served, from the run file's counters for the epoch.
llc=$("$CORUN" show "$TMPD/r.h5" --json 2>/dev/null | python3 -c '
import json, sys
k = [k for k in json.load(sys.stdin)["epochs"][3]["kernels"] if k["name"] == "stream"][0]
print("LLC: {:,} accesses, {:.1f} % missed; DRAM {:.1f} GB/s".format(
    k["l2_accesses"], 100 * k["l2_misses"] / k["l2_accesses"], k["bandwidth_gbs"]))')
[ -n "$llc" ] || fail "no counters for stream in epoch 4 of the run file"
tui_wait "$llc"
tui_keys x
tui_gone "Press any key to continue."
# In its panel the explanation is cut: its last row says so, under the last row of text.
tui_panel "Explain: A stream" "$TMPD/explain"
[ "$(tail -1 "$TMPD/explain" | sed 's/ *$//')" = "... Enter shows all" ] &&
    [ -n "$(tail -2 "$TMPD/explain" | head -1 | tr -d ' ')" ] ||
    fail "the cut explanation does not end in '... Enter shows all': $(cat "$TMPD/explain")"

# Enter on the event log: the bottom line whole; one Up puts the reason there.
tui_keys BTab
tui_wait "[ Event log ]"
tui_keys Up
tui_keys Enter
tui_wait "Press any key to continue."
# The window's rows ("│X│ text │X│" over the chart row), joined.
tui_screen | LC_ALL=C.UTF-8 sed -n 's/^│.│ \(.*\)│.│$/\1/p' | tr -s ' \n' ' ' >"$TMPD/flat"
grep -qF -- "$reason" "$TMPD/flat" || fail "the log window does not hold '$reason':
$(tui_screen)"
tui_keys x
tui_gone "Press any key to continue."
tui_keys q
tui_wait "exit=0"
echo "tui explain: legend, span, Class and explain in a replay, Enter opens panel and reason"
