#!/usr/bin/env bash
# The allocator menu (a) and the parameter editor (e). On lbm + bino (memory- and compute-bound,
# an unfair pair under the even split) the menu lists every registered allocator, the active one
# and those that decide from the predictor marked; with hsm and fair chosen the header says so,
# the event log gets the switch and fair's repartition with its reason, and the SM map changes.
# The editor refuses fairness_threshold = 1.5 naming the valid range and keeps 0.9, and takes
# 0.95, which is logged. o on the unsaved run asks first; a saved run replayed shows each
# epoch's predictor and allocator in the header. SMQoS gating SMs: the SM map after each epoch
# is the partition a headless run recorded. Deadlines only, no timings.
. "$(dirname "$0")/../lib.sh"
cfg="$TMPD/pair.cfg"
cat >"$cfg" <<'EOF'
name = "tui alloc pair";
gpu = "hbm80";
seed = 7;
epochs = 10;
epoch_cycles = 20000;
kernels = (
  { name = "lbm"; },
  { name = "bino"; }
);
EOF

# The SM map panel's rows (cells and legend): the second of the panels side by side.
smmap() {
    tui_screen | awk -F'││' '/SM map, /{on = 1; next} on && /^└/{exit} on {print $2}'
}
# Steps one epoch and waits until it is on screen and nothing computes.
step() {
    tui_keys Space
    tui_wait "Epoch $1/10"
    tui_wait "idle: Space steps"
}
# The digit of menu row NAME on the screen (the menu is open).
row_digit() {
    grep -Eo "[0-9] [ *] $1 " "$TMPD/screen" | head -1 | cut -c1
}

tui_start 160 40 LC_ALL=C.UTF-8 TERM=xterm -- tui "$cfg"
tui_wait "Epoch 0/10"
tui_wait "Allocator: static"
tui_wait "a Alloc  e Params"
for i in 1 2 3; do step $i; done

# The help lists both keys.
tui_keys '?'
tui_wait "Press any key to close this help."
grep -Eq 'a +allocator menu' "$TMPD/screen" || fail "the help does not list a:
$(cat "$TMPD/screen")"
grep -Eq 'e +edit parameters' "$TMPD/screen" || fail "the help does not list e:
$(cat "$TMPD/screen")"
# `corun help tui` lists the keys the workbench's help does (it lacked a, e and k).
"$CORUN" help tui >"$TMPD/help"
for key in p a e k s o G q; do
    grep -Eq "│ +$key( |$)" "$TMPD/screen" || fail "the workbench's help does not list $key"
    grep -Eq "^  $key( |$)" "$TMPD/help" || fail "corun help tui does not list $key: $(cat "$TMPD/help")"
done
tui_keys x
tui_gone "Press any key to close this help."

tui_choose p hsm
tui_wait "Predictor: hsm"

# The allocator menu: the registry (the names an unknown --allocator is told about), static
# active, the predictor's users marked.
known=$(CORUN_DATADIR="$top_srcdir" "$CORUN" run "$cfg" --epochs 1 --allocator zzz 2>&1 |
    sed -n 's/.*known: //p' | tr -d ,)
case " $known " in *" fair "*) ;; *) fail "fair is not registered: '$known'" ;; esac
tui_keys a
tui_wait "pred: decides from NP pred"
grep -Eq '0 \* static ' "$TMPD/screen" || fail "the menu does not mark static as active:
$(cat "$TMPD/screen")"
for name in $known; do
    grep -Eq "[0-9] [ *] $name " "$TMPD/screen" || fail "the menu does not list $name:
$(cat "$TMPD/screen")"
done
grep -Eq "[0-9] +fair +pred +HSM-Fair" "$TMPD/screen" ||
    fail "fair is not marked as a user of the predictor:
$(cat "$TMPD/screen")"
grep -Eq "[0-9] +even +pred" "$TMPD/screen" && fail "even is marked as a user of the predictor:
$(cat "$TMPD/screen")"
# The arrows: Up from the active row (static, the first) wraps to the last, Down moves one
# row on and from the last back to the first, Enter chooses the row they reached.
last=${known##* }
tui_keys Up Up Down Enter
tui_wait "Allocator: $last"
tui_keys a
tui_wait "pred: decides from NP pred"
tui_keys Down Enter
tui_wait "Allocator: static"
tui_wait "allocator: $last -> static"
tui_keys a
tui_wait "pred: decides from NP pred"
# A digit with no row says so in place of the hint (it did nothing, unsaid).
tui_keys 9
tui_wait "9: no such row (0 to 8); Esc closes"
n=$(row_digit fair)
tui_keys "$n"
tui_gone "pred: decides from NP pred"
tui_wait "Allocator: fair"
tui_wait "allocator: static -> fair"
tui_screen >"$TMPD/s"
grep -q "Predictor: hsm  Allocator: fair" "$TMPD/s" || fail "the header does not name hsm and fair:
$(cat "$TMPD/s")"
grep -q "fair decides from a predictor's NP" "$TMPD/s" && fail "fair asks for a predictor beside hsm:
$(cat "$TMPD/s")"

# Fair decides at an epoch boundary from the last epoch's NP̂: epoch 4 is the first hsm
# predicts, so the repartition comes at the start of epoch 5.
smmap >"$TMPD/before"
grep -q "A 40 B 40" "$TMPD/before" || fail "the even split is not on the SM map:
$(cat "$TMPD/before")"
step 4
step 5
tui_wait "repartition: fair: fairness"
smmap >"$TMPD/after"
cmp -s "$TMPD/before" "$TMPD/after" && fail "the SM map did not change after fair's repartition:
$(cat "$TMPD/after")"
grep -q "A 40 B 40" "$TMPD/after" && fail "the legend still counts 40/40:
$(cat "$TMPD/after")"

# The parameter editor: Down to fairness_threshold, whose field says its range.
tui_keys e
tui_wait "Enter edits"
grep -Eq "fairness_threshold +0\.9 +a number from 0\.01 to 1" "$TMPD/screen" ||
    fail "the editor does not list fairness_threshold 0.9 with its range:
$(cat "$TMPD/screen")"
# The arrows move one row, and wrap: its help line follows the highlighted row, from the first
# (epoch_cycles) up to the last (kernels[1].qos_target), down to the first, the second and the
# third, and up to the second.
grep -q "epoch length: how often" "$TMPD/screen" || fail "the first row's help is not shown:
$(cat "$TMPD/screen")"
tui_keys Up
tui_wait "normalized progress to keep (high priority)"
tui_keys Down
tui_wait "epoch length: how often"
tui_keys Down
tui_wait "fair, themis-engine: rebalance when fairness is below it"
tui_keys Down
tui_wait "qos: shrink the high-priority kernel when its NP is above it"
tui_keys Up
tui_wait "fair, themis-engine: rebalance when fairness is below it"
for _ in $(seq 30); do
    tui_keys Enter
    tui_wait "Enter accepts"
    grep -q "fairness_threshold (" "$TMPD/screen" && break
    tui_keys Escape
    tui_gone "Enter accepts"
    tui_keys e Down
done
grep -q "fairness_threshold (a number from 0.01 to 1)" "$TMPD/screen" ||
    fail "no field for fairness_threshold:
$(cat "$TMPD/screen")"
# A refused value: the field opens again with the text typed and why under it (a dialog threw
# both away); Esc leaves it, and the editor shows the old value.
tui_keys C-u 1.5 Enter
tui_wait "got 1.5"
tui_wait " 1.5_"
grep -q "fairness_threshold (a number from 0.01 to 1)" "$TMPD/screen" ||
    fail "the refused value's field did not open again: $(cat "$TMPD/screen")"
tui_wait "fairness_threshold unchanged (0.9)"
tui_keys Escape
tui_gone "got 1.5"
tui_keys e
tui_wait "Enter edits"
grep -Eq "fairness_threshold +0\.9 " "$TMPD/screen" || fail "the refused value changed it:
$(cat "$TMPD/screen")"
tui_keys Enter
tui_wait "fairness_threshold (a number"
tui_keys C-u " 0.95 " Enter # the blanks around it are not the value's (the log kept them)
tui_wait "parameter: set fairness_threshold=0.95"
tui_screen | grep -Eq "fairness_threshold +0\.95 +a number" || fail "the editor does not show 0.95:
$(tui_screen)"
tui_keys Escape
tui_gone "Enter edits"

# o on the unsaved run asks; only an answer closes the question (a path typed at once closed
# it with its first key, and the rest went on as keys: r ran, s saved); n keeps the run.
tui_keys o
tui_wait "open another run without saving? y/n"
tui_keys -l "/tmp/r.h5"
sleep 0.5
tui_screen | grep -q "open another run without saving? y/n" || fail "a typed path closed the question:
$(tui_screen)"
tui_screen | grep -q "Running" && fail "a typed path's r ran the run"
tui_keys n
tui_gone "without saving"
tui_wait "Epoch 5/10"

# Saved, the run opens in a replay whose header follows the epoch shown: epoch 3 ran on static
# without a predictor, epochs 4 and 5 on fair with hsm.
tui_keys s
tui_wait "Record this run"
tui_keys C-u "$TMPD/alloc.h5" Enter
tui_wait "later epochs are recorded"
tui_keys x
tui_gone "later epochs are recorded"
tui_keys o
tui_wait "Replay the run file"
tui_keys "$TMPD/alloc.h5" Enter
tui_wait "REPLAY"
tui_wait "Epoch 5/5"
tui_wait "Predictor: hsm  Allocator: fair"
tui_keys Left
tui_wait "Epoch 4/5"
tui_wait "Predictor: hsm  Allocator: fair"
tui_keys Left
tui_wait "Epoch 3/5"
tui_wait "Predictor: none  Allocator: static"
tui_keys q
tui_wait "exit=0"

# SMQoS gating SMs (its IPC target at 0.35 of the LS kernel's alone: the kernel gives SMs back
# that the batch kernel does not profit from): after each epoch the SM map is the partition the
# headless run recorded for it (the run file's partition at the epoch's end), at 100 columns
# in two rows of 12, at 160 columns in one row; the legend's cross is a gated SM.
sed -e 's/^epochs = 12;/epochs = 10; allocator = "smqos"; smqos_policy = 0.35;/' \
    "$top_srcdir/scenarios/demo-smqos.cfg" >"$TMPD/gate.cfg"
grep -q 'smqos_policy = 0.35;' "$TMPD/gate.cfg" || fail "could not write gate.cfg"
CORUN_DATADIR="$top_srcdir" "$CORUN" run "$TMPD/gate.cfg" --epochs 4 --out "$TMPD/gate.h5" \
    >/dev/null 2>&1 || fail "run gate.cfg"
"$CORUN" export "$TMPD/gate.h5" --csv "$TMPD/gate" >/dev/null 2>&1 || fail "export gate.h5"
check_smmap() { # EPOCH: the map against the epoch's row of partition.csv
    tui_screen >"$TMPD/screen"
    tui_panel "SM map, 24 SMs, now" "$TMPD/map"
    python3 - "$TMPD/map" "$TMPD/gate/partition.csv" "$1" <<'PY' || fail "the SM map after epoch $1:
$(cat "$TMPD/screen")"
import csv, sys
panel = open(sys.argv[1]).read().split("\n")[:-1]
owner = [int(v) for v in list(csv.reader(open(sys.argv[2])))[int(sys.argv[3])][1:]]
assert len(owner) == 24, owner
cols = len(panel[0])
glyph = lambda o: "AB"[o] if o >= 0 else "·" if o == -1 else "×"
nrows = -(-24 // cols)
per_row = -(-24 // nrows)
step = 2 if per_row * 2 <= cols else 1
want = [[" "] * cols for _ in panel]
for i, o in enumerate(owner):
    want[i // per_row][i % per_row * step] = glyph(o)
for y in range(len(panel) - 1):
    assert panel[y] == "".join(want[y]), (y, panel[y], "".join(want[y]))
idle, gated = owner.count(-1), owner.count(-2)
assert gated, ("no SM gated", owner)
legend = "A %d B %d " % (owner.count(0), owner.count(1))
words = len(legend) + (len("· %d idle " % idle) if idle else 0) + len("× %d gated" % gated) <= cols
if idle:
    legend += "· %d idle " % idle if words else "· %d " % idle
legend += "× %d gated" % gated if words else "× %d" % gated
assert panel[-1].rstrip() == legend, (panel[-1], legend)
print(cols, nrows, words)
PY
}
tui_tmux kill-server
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- tui "$TMPD/gate.cfg"
tui_wait "Epoch 0/10"
tui_wait "Allocator: smqos"
for i in 1 2 3 4; do
    step $i
    [ $i -lt 3 ] || check_smmap $i >"$TMPD/shape.$i"
done
grep -q "^23 2 " "$TMPD/shape.3" || fail "the map at 100 columns: $(cat "$TMPD/shape.3")"
tui_resize 160 40
tui_wait "gated"
check_smmap 4 >"$TMPD/shape.4"
grep -Eq "^[0-9]+ 1 True$" "$TMPD/shape.4" || fail "the map at 160 columns: $(cat "$TMPD/shape.4")"
tui_keys q
tui_wait "quit without saving? y/n"
tui_keys y
tui_wait "exit=0"

echo "tui alloc: menus list the registries; hsm + fair repartition; editor refuses 1.5, takes 0.95; SMQoS's gated SMs in the SM map"
