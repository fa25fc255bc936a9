#!/usr/bin/env bash
# Lessons. `corun lesson list` prints every lesson of scenarios/lessons one line each (wrapped
# under itself on a narrow terminal) and
# `corun check` accepts each (and refuses a bad one with its file and line). hsm-fair is
# stepped through at 80x24 with n: each step does what it says (the predictor, the allocator
# and its reasons in the log, a parameter), N goes back, L hides the panel; the screen shows the
# chart's legend and the allocator's reason uncut, and at 80x24 a label on the chart's top row
# when NP goes above 1. The 200x60 screen shows the legend and the reason too.
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"

"$CORUN" lesson list >"$TMPD/list" || fail "corun lesson list failed"
n=$(ls "$top_srcdir"/scenarios/lessons/*.cfg | wc -l)
[ "$n" -ge 8 ] || fail "only $n lessons"
[ "$(wc -l <"$TMPD/list")" -eq "$n" ] || fail "lesson list is not one line per lesson:
$(cat "$TMPD/list")"
for f in "$top_srcdir"/scenarios/lessons/*.cfg; do
    name=$(basename "$f" .cfg)
    title=$(sed -n 's/^title = "\(.*\)";$/\1/p' "$f")
    grep -qF "$name" "$TMPD/list" || fail "$name is not listed"
    grep -qF "$title: " "$TMPD/list" || fail "$name's title '$title' is not listed"
    "$CORUN" check "$f" >/dev/null 2>"$TMPD/err" || fail "corun check $f: $(cat "$TMPD/err")"
done
for f in "$top_srcdir"/scenarios/demo-*.cfg; do
    "$CORUN" check "$f" >/dev/null 2>"$TMPD/err" || fail "corun check $f: $(cat "$TMPD/err")"
done
# On an 80-column terminal (a projector's) the list wraps each text under itself, its name
# column kept, rather than the terminal breaking it at column 80; piped, one line each (above).
# `corun help lesson`: the command, then every setting a lesson file and its steps take (a
# teacher writing one had no list of them).
"$CORUN" help lesson >"$TMPD/help" || fail "corun help lesson"
grep -q '^usage: corun lesson ' "$TMPD/help" || fail "help lesson: no usage: $(cat "$TMPD/help")"
for key in title summary scenario steps text task question notice run predictor allocator add \
    remove set view predict; do
    grep -q "^  $key  " "$TMPD/help" || fail "help lesson does not list $key: $(cat "$TMPD/help")"
done
tui_start 80 40 -- lesson list
tui_wait "exit=0"
tui_screen >"$TMPD/wrapped"
! awk 'length > 80' "$TMPD/wrapped" | grep -q . || fail "lesson list wider than 80 columns:
$(cat "$TMPD/wrapped")"
grep -Eq '^ {17}[a-z]' "$TMPD/wrapped" || fail "no text wrapped under itself:
$(cat "$TMPD/wrapped")"
[ "$(grep -Ec '^[a-z][a-z-]* {2,}' "$TMPD/wrapped")" -eq "$n" ] || fail "not a row per lesson on the terminal:
$(cat "$TMPD/wrapped")"
tui_tmux kill-server
# A bad lesson: every mistake with its file and line, status 2.
cat >"$TMPD/bad.cfg" <<'CFG'
title = "bad";
summary = "bad";
scenario = "nothere.cfg";
steps = (
  { title = "one"; predictor = "zzz"; view = "everything"; set = ["novalue"]; }
);
CFG
expect_bad "a bad lesson" 'bad.cfg:3: scenario: no scenario file "nothere.cfg"' \
    "$CORUN" check "$TMPD/bad.cfg"
grep -q 'bad.cfg:5: steps\[0\].view' "$TMPD/err" || fail "no message for view: $(cat "$TMPD/err")"
grep -q 'steps\[0\].set\[0\]: expected "KEY=VALUE"' "$TMPD/err" ||
    fail "no message for set: $(cat "$TMPD/err")"
sed -i 's/nothere.cfg/demo-pair.cfg/; s/ view = "everything";//; s/"novalue"/"hp_share=0.5"/' \
    "$TMPD/bad.cfg"
expect_bad "an unknown predictor" 'bad.cfg:5: steps\[0\].predictor: unknown predictor "zzz"' \
    "$CORUN" check "$TMPD/bad.cfg"
# What the steps would do, checked as the workbench would do it (check once said ok to a
# lesson whose changes the workbench then refused in class, and to a step removing the kernel
# it adds, which the workbench left in): every refusal with its step.
cat >"$TMPD/bad2.cfg" <<'CFG'
title = "bad";
summary = "bad";
scenario = "demo-pair.cfg";
steps = (
  { title = "one"; run = 1; },
  { title = "two"; add = "nosuch"; set = ["fairness_threshold=2", "epochs=3"]; remove = "zzz"; },
  { title = "three"; remove = "lbm"; },
  { title = "four"; remove = "bino"; },
  { title = "five"; add = "stream"; remove = "stream"; },
  { title = "six"; add = "nokernel"; remove = "nokernel"; }
);
CFG
expect_bad "a lesson whose changes would be refused" \
    "bad2.cfg:6: steps\[1\].set\[0\]: fairness_threshold: expected a number from 0.01 to 1, got 2" \
    "$CORUN" check "$TMPD/bad2.cfg"
for want in "bad2.cfg:6: steps\[1\].set\[1\]: epochs: not a parameter a run can change" \
    'bad2.cfg:6: steps\[1\].add: kernel nosuch: unknown kernel "nosuch"' \
    "bad2.cfg:6: steps\[1\].remove: zzz is not in the mix at this step (lbm, bino)" \
    "bad2.cfg:8: steps\[3\].remove: bino is the last kernel of the mix: add another first" \
    "bad2.cfg:9: steps\[4\].remove: stream is the kernel this step adds, and a step's add and remove apply together at the next epoch, so it cannot remove it (remove it in a later step)"; do
    grep -q "$want" "$TMPD/err" || fail "no '$want': $(cat "$TMPD/err")"
done
# An add refused says it alone: the remove of the same kernel added that it was added.
grep -q 'bad2.cfg:10: steps\[5\].add: kernel nokernel: unknown kernel' "$TMPD/err" &&
    ! grep -q 'steps\[5\].remove' "$TMPD/err" || fail "the refused add's remove: $(cat "$TMPD/err")"
# A kernel an earlier step added (and ran) takes settings by its index: check accepts what the
# workbench does, and names the range by then.
cat >"$TMPD/added.cfg" <<'CFG'
title = "added"; summary = "added"; scenario = "demo-pair.cfg";
steps = (
  { title = "one"; add = "teach-stream"; run = 1; },
  { title = "two"; set = ["kernels[2].qos_target=0.7", "kernels[2].priority=\"high\""]; run = 1; }
);
CFG
[ "$("$CORUN" check "$TMPD/added.cfg")" = ok ] || fail "a setting of an added kernel refused"
sed -i 's/kernels\[2\].qos_target=0.7/kernels[2].qos_target=7/; s/kernels\[2\].priority/kernels[3].priority/' \
    "$TMPD/added.cfg"
expect_bad "an added kernel's setting out of range" \
    'added.cfg:4: steps\[1\].set\[0\]: kernels\[2\].qos_target: expected a number from 0.01 to 1, got 7' \
    "$CORUN" check "$TMPD/added.cfg"
grep -q 'steps\[1\].set\[1\]: kernels\[3\].priority: expected a kernel index from 0 to 2' "$TMPD/err" ||
    fail "no message for kernels[3]: $(cat "$TMPD/err")"
# The lesson command refuses it too, before it opens (a lesson file of one's own, by path).
set +e
"$CORUN" lesson "$TMPD/bad2.cfg" </dev/null >/dev/null 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "steps\[3\].remove: bino is the last kernel" "$TMPD/err" ||
    fail "lesson bad2.cfg: exit $rc: $(cat "$TMPD/err")"
# A teacher's lesson beside its own scenario: check takes it, and so does the lesson command
# (which then asks for a terminal, the last thing it checks before it opens).
mkdir -p "$TMPD/mine"
cp "$top_srcdir/scenarios/demo-llc.cfg" "$TMPD/mine/myscen.cfg"
sed 's/scenario = "demo-llc.cfg";/scenario = "myscen.cfg";/' \
    "$top_srcdir/scenarios/lessons/llc-queues.cfg" >"$TMPD/mine/mine.cfg"
[ "$("$CORUN" check "$TMPD/mine/mine.cfg")" = ok ] || fail "check of a lesson beside its scenario"
set +e
(cd "$TMPD/mine" && "$CORUN" lesson mine.cfg </dev/null >/dev/null 2>"$TMPD/err")
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "a lesson needs a terminal" "$TMPD/err" ||
    fail "lesson mine.cfg: exit $rc: $(cat "$TMPD/err")"
(cd "$TMPD/mine" && needs_both_terminals "a lesson needs a terminal; 'corun lesson list' lists them" lesson mine.cfg)
expect_bad "a lesson file that is not there" "nope.cfg: cannot open: No such file or directory" \
    "$CORUN" lesson "$TMPD/nope.cfg"
expect_bad "an unknown lesson" 'no lesson "zzz"' "$CORUN" lesson zzz
expect_bad "a misspelt lesson" 'no lesson "evicetd" (no .*); did you mean evicted? ' "$CORUN" lesson evicetd
expect_bad "the beginning of two lessons" 'no lesson "ev" (no .*); did you mean evicted or even-split? ' \
    "$CORUN" lesson ev
expect_bad "a name that is not one" 'is not a lesson name' "$CORUN" lesson .x
expect_bad "a scenario's name" 'no lesson "default": default is a scenario, which `corun tui default` opens' \
    "$CORUN" lesson default

# The reason of the fair allocator's first repartition in this lesson's pair, as a headless run
# with the same switches prints it (HSM from epoch 1, fair from epoch 3).
"$CORUN" run "$top_srcdir/scenarios/demo-pair.cfg" --epochs 5 --predictor hsm >/dev/null ||
    fail "the demo pair does not run"

tui_start 80 24 LC_ALL=C.UTF-8 TERM=xterm -- lesson hsm-fair
tui_wait "Lesson 1/4: HSM-Fair at work"
tui_wait "Step 1 of 4: A predictor watches"
tui_wait "Predictor: hsm"
tui_wait "Epoch 2/12"
tui_wait "A B true  a b predicted"
tui_wait "[ Explain: A lbm ]"
tui_keys n
tui_wait "Lesson 2/4: "
tui_wait "Allocator: fair"
tui_wait "Epoch 5/12"
tui_wait "[ Event log ]"
tui_wait "repartition: fair:"
tui_screen >"$TMPD/step2-80x24"
# The reason's words, wrapped but whole: the log rows under "repartition", joined.
reason=$(LC_ALL=C.UTF-8 sed -n 's/^│\(.\{38\}\)│.*/\1/p' "$TMPD/step2-80x24" |
    sed -n '/repartition: fair:/,$p' | tr -s ' \n' ' ')
case "$reason" in
*"repartition: fair: fairness "*" < 0.90, moved "*" SM"*" lbm→bino ("*" predicted)"*) ;;
*) fail "the reason is not whole in the log at 80x24: '$reason'
$(cat "$TMPD/step2-80x24")" ;;
esac
grep -q "A B true  a b predicted" "$TMPD/step2-80x24" || fail "no legend at 80x24"
# The key bar keeps L at 80 columns: it is how a hidden lesson panel comes back.
tail -1 "$TMPD/step2-80x24" | grep -q " L Lesson" ||
    fail "no L in the key bar of a lesson at 80 columns: $(tail -1 "$TMPD/step2-80x24")"
# lbm's NP is above 1 here: the chart's top row carries the top of its scale (only 1.00 and
# 0.00 were labelled, the points above 1 in rows without a label).
top=$(sed -n '/NP history/{n;p;q}' "$TMPD/step2-80x24" | sed -n 's/^│\([0-9.]*\)┤.*/\1/p')
[ -n "$top" ] && awk -v v="$top" 'BEGIN { exit !(v > 1) }' ||
    fail "the chart's top row has no label above 1.00 at 80x24:
$(cat "$TMPD/step2-80x24")"
# Enter on the lesson panel opens the step whole.
tui_keys Tab
tui_wait "[ Lesson 2/4: HSM-Fair at work ]"
tui_keys Enter
tui_wait "Press any key to continue."
tui_wait "opens a line whole)."
tui_keys x
tui_gone "Press any key to continue."
tui_keys n
tui_wait "Lesson 3/4: "
tui_wait "Epoch 8/12"
tui_wait "[ System ]"
tui_keys n
tui_wait "Lesson 4/4: "
tui_wait "fairness_threshold=0.97"
tui_wait "Epoch 11/12"
# N goes back without doing the step again; n returns; past the last step, a message.
tui_keys N
tui_wait "Lesson 3/4: "
tui_keys n
tui_wait "Lesson 4/4: "
tui_keys n
tui_wait "That was the last step of hsm-fair."
tui_keys x
tui_gone "That was the last step"
grep -q "Epoch 11/12" "$TMPD/screen" || fail "going back and forth ran epochs"
# L hides the panel: the usual layout, with the SM map.
tui_keys L
tui_gone "HSM-Fair at work"
tui_wait "SM map, 40 SMs"
tui_keys L
tui_wait "HSM-Fair at work"
tui_keys q
tui_wait "quit without saving?"
tui_keys y
tui_wait "exit=0"

# 200x60: the legend, the whole step and the reason in one line.
tui_start 200 60 LC_ALL=C.UTF-8 TERM=xterm -- lesson hsm-fair
tui_wait "Epoch 2/12"
# n while the step's epochs run does not open the next step: n n ended at epoch 4 of 5, the
# next step's notice then contradicting the log.
tui_keys n n
tui_wait "The step's epochs are still running: n opens the next step"
tui_keys Escape
tui_gone "The step's epochs are still running"
tui_wait "Epoch 5/12"
grep -q "Lesson 2/4: " "$TMPD/screen" || fail "a second n opened step 3: $(cat "$TMPD/screen")"
tui_wait "repartition: fair: fairness "
tui_screen >"$TMPD/step2-200x60"
grep -q "A lbm  B bino  true NP  a b predicted" "$TMPD/step2-200x60" ||
    fail "no legend with names at 200x60:
$(cat "$TMPD/step2-200x60")"
grep -Eq "repartition: fair: fairness [0-9.]+ < 0.90, moved [0-9]+ SMs? lbm→bino \([0-9.]+ predicted\)" \
    "$TMPD/step2-200x60" || fail "the reason is not on one line at 200x60:
$(cat "$TMPD/step2-200x60")"
grep -q "Enter shows the whole step" "$TMPD/step2-200x60" && fail "the step does not fit 200x60"
tui_keys q y
tui_wait "exit=0"
# The kernels' names whole where the window has room (the table's name column widens to the
# longest, teach-compute), and the columns still within the window at 80 columns.
tui_start 120 40 LC_ALL=C.UTF-8 TERM=xterm -- lesson scaling
tui_wait "Epoch 2/12"
tui_wait "B teach-compute "
tui_tmux kill-server
tui_start 80 24 LC_ALL=C.UTF-8 TERM=xterm -- lesson scaling
tui_wait "Epoch 2/12"
tui_screen >"$TMPD/scaling-80x24"
# The last column, QoS, is whole: teach-stream, high-priority, kept its target of 0.8.
grep -Eq '^│>A teach-stream +20\.0 .* met│$' "$TMPD/scaling-80x24" ||
    fail "the kernels' table does not fit 80 columns:
$(cat "$TMPD/scaling-80x24")"
tui_tmux kill-server
# llc-queues tells a story the simulator must keep telling: teach-cache keeps its SM share's NP
# beside teach-stream and loses most of it beside teach-random while hardly using DRAM (its
# LLC hits wait behind the random kernel's misses), so HSM's compute rule errs by over 100 %.
np_cache() { # SCENARIO [ARGS...]: teach-cache's NP and GB/s in the last of 4 epochs
    "$CORUN" run "$@" --epochs 4 --json 2>/dev/null | python3 -c '
import json, sys
k = [k for k in json.load(sys.stdin)["epochs"][-1]["kernels"] if k["name"] == "teach-cache"][0]
print(k["np"], k["bandwidth_gbs"])'
}
sed 's/"teach-stream"/"teach-random"/' "$top_srcdir/scenarios/demo-llc.cfg" >"$TMPD/llc-random.cfg"
read -r np_stream _ <<<"$(np_cache demo-llc)"
read -r np_random gbs_random <<<"$(np_cache "$TMPD/llc-random.cfg")"
python3 -c "import sys; s, r, g = map(float, sys.argv[1:]); sys.exit(not (s > 0.45 and r < 0.3 and g < 20))" \
    "$np_stream" "$np_random" "$gbs_random" ||
    fail "llc-queues: teach-cache's NP $np_stream beside the stream, $np_random at $gbs_random GB/s beside the random kernel"
# In the workbench, with HSM: its error (over 100 %) has no decimal, so it does not run into the
# NP pred column ("0.500268.2%" once).
printf 'predictor = "hsm";\n' >>"$TMPD/llc-random.cfg"
tui_start 120 40 LC_ALL=C.UTF-8 TERM=xterm -- tui "$TMPD/llc-random.cfg"
tui_wait "Epoch 0/12"
tui_keys Space Space Space
tui_wait "Epoch 3/12"
tui_wait "idle: Space steps"
grep -Eq '^│>A teach-cache +20\.0 +[0-9.]+ +0\.[0-9]{3} +0\.500 +[0-9]{3}% ' "$TMPD/screen" ||
    fail "teach-cache's row beside teach-random, with HSM:
$(cat "$TMPD/screen")"
tui_tmux kill-server
# evicted: teach-chase keeps its share beside teach-cache (both hot sets fit in the LLC) and
# loses most of it beside teach-stream, reaching DRAM; with a four times larger LLC it keeps
# most of it, so the loss is the LLC's capacity, as the lesson says.
chase() { # ARGS...: teach-chase's NP and GB/s in the last of 4 epochs of demo-evict
    "$CORUN" run demo-evict "$@" --epochs 4 --json 2>/dev/null | python3 -c '
import json, sys
k = [k for k in json.load(sys.stdin)["epochs"][-1]["kernels"] if k["name"] == "teach-chase"][0]
print(k["np"], k["bandwidth_gbs"])'
}
read -r np_cached gbs_cached <<<"$(chase --remove 1:1 --add 1:teach-cache)"
read -r np_streamed gbs_streamed <<<"$(chase --remove 1:1 --add 1:teach-stream)"
read -r np_big _ <<<"$(chase --remove 1:1 --add 1:teach-stream --set gpu.llc.size_bytes=25165824)"
python3 -c "import sys; c, gc, s, gs, b = map(float, sys.argv[1:])
sys.exit(not (c > 0.45 and gc < 10 and s < 0.6 * c and gs > 30 and b > 1.6 * s))" \
    "$np_cached" "$gbs_cached" "$np_streamed" "$gbs_streamed" "$np_big" ||
    fail "evicted: teach-chase's NP $np_cached at $gbs_cached GB/s beside teach-cache, $np_streamed at $gbs_streamed GB/s beside teach-stream, $np_big with a 24 MB LLC"
# The captures, for the record.
if [ -n "${CORUN_CAPTURES:-}" ]; then
    cp "$TMPD/step2-80x24" "$CORUN_CAPTURES/lesson-80x24.txt"
    cp "$TMPD/step2-200x60" "$CORUN_CAPTURES/lesson-200x60.txt"
fi
echo "lesson: list, check, hsm-fair stepped through at 80x24 and 200x60, scaling's names whole at 120x40, llc-queues' and evicted's stories"
