#!/usr/bin/env bash
# The QoS column and the System panel's QoS row. Two high-priority kernels on 16 SMs: stream
# on 6 with a target of 0.3, compute on 8 with 0.9 (on half the SMs compute keeps NP 0.5, so
# it cannot meet it), and a low-priority one without a target on 2. Before the first epoch
# the column shows each target; after one, met or miss from the true NP, and the System panel
# 1/2 met. Under smqos the target is smqos_policy (here 0.2): both met; and the run's energy
# there is the sum of its epochs'. In a guess lesson the truth is hidden, and so is whether
# it met its target.
. "$(dirname "$0")/../lib.sh"
cfg="$TMPD/qos.cfg"
cat >"$cfg" <<'CFG'
name = "tui qos";
gpu = "hbm80";
gpu_overrides = { sms = 16; };
seed = 7;
epochs = 10;
epoch_cycles = 20000;
smqos_policy = 0.2;
kernels = (
  { name = "stream"; priority = "high"; qos_target = 0.3; sms = 6; },
  { name = "compute"; priority = "high"; qos_target = 0.9; sms = 8; },
  { name = "random"; sms = 2; }
);
CFG
# A kernel table row: name, then the QoS cell (the last word inside the box).
qos_cell() {
    grep -E "^│.[A-Z] $1 " "$TMPD/screen" | sed 's/ *│$//' | awk '{print $NF}'
}
# Whether the System panel's QoS row shows $1.
qos_row() {
    grep -Eq "││QoS +$1│" "$TMPD/screen"
}

tui_start 140 40 LC_ALL=C.UTF-8 TERM=xterm -- tui "$cfg"
tui_wait "Epoch 0/10"
tui_wait "Kernels, before the first epoch"
[ "$(qos_cell stream)" = 0.30 ] && [ "$(qos_cell compute)" = 0.90 ] && [ "$(qos_cell random)" = – ] ||
    fail "targets before the first epoch: $(cat "$TMPD/screen")"
tui_keys Space
tui_wait "Epoch 1/10"
tui_wait "idle: Space steps"
[ "$(qos_cell stream)" = met ] && [ "$(qos_cell compute)" = miss ] && [ "$(qos_cell random)" = – ] ||
    fail "met and miss after an epoch: $(cat "$TMPD/screen")"
qos_row "1/2 met" || fail "the System panel's QoS: $(cat "$TMPD/screen")"
# A target changed now is the next epoch's: the finished one keeps its verdict (compute's miss
# turned met, and 2/2 met, with no epoch run).
tui_keys e
tui_wait "Enter edits"
tui_keys Up Up Up Enter
tui_wait "kernels[1].qos_target (a number"
tui_keys C-u 0.1 Enter
tui_wait "parameter: set kernels[1].qos_target=0.1"
tui_keys Escape
tui_gone "Enter edits"
tui_screen >"$TMPD/screen"
[ "$(qos_cell compute)" = miss ] && qos_row "1/2 met" ||
    fail "a target changed after the epoch changed its verdict: $(cat "$TMPD/screen")"
tui_keys Space
tui_wait "Epoch 2/10"
tui_wait "idle: Space steps"
[ "$(qos_cell compute)" = met ] && qos_row "2/2 met" ||
    fail "the next epoch is not judged by the new target: $(cat "$TMPD/screen")"
tui_keys q
tui_wait "quit without saving? y/n"
grep -q "2 epochs of this run are not recorded\." "$TMPD/screen" || fail "two unsaved epochs:
$(cat "$TMPD/screen")"
tui_keys y
tui_wait "exit=0"

# Under smqos the target is smqos_policy: both kernels keep 0.2.
sed -i 's/^seed = 7;/seed = 7;\nallocator = "smqos";/' "$cfg"
tui_start 140 40 LC_ALL=C.UTF-8 TERM=xterm -- tui "$cfg"
tui_wait "Allocator: smqos"
[ "$(qos_cell stream)" = 0.20 ] && [ "$(qos_cell compute)" = 0.20 ] ||
    fail "smqos targets: $(cat "$TMPD/screen")"
tui_keys Space
tui_wait "Epoch 1/10"
tui_wait "idle: Space steps"
qos_row "2/2 met" || fail "smqos: $(cat "$TMPD/screen")"
# The run's energy is the epochs' sum: the first epoch's alone, then more than the second's.
energy() { grep -Eo "││$1 +[0-9.]+ [µm]?J│" "$TMPD/screen" | sed -E "s/││$1 +//; s/│$//"; }
[ -n "$(energy Energy)" ] && [ "$(energy Energy)" = "$(energy 'Energy, run')" ] ||
    fail "energy of the first epoch: $(cat "$TMPD/screen")"
e1=$(energy Energy)
tui_keys Space
tui_wait "Epoch 2/10"
tui_wait "idle: Space steps"
e2=$(energy Energy) run=$(energy 'Energy, run')
python3 - "$e1" "$e2" "$run" <<'PY' || fail "energy after two epochs: $e1 + $e2 against $run"
import sys
unit = {"J": 1, "mJ": 1e-3, "µJ": 1e-6}
a, b, r = (float(x.split()[0]) * unit[x.split()[1]] for x in sys.argv[1:4])
assert abs(a + b - r) <= 0.01 * r, (a, b, r)
PY
tui_keys q
tui_wait "quit without saving? y/n"
grep -q "2 epochs of this run are not recorded\." "$TMPD/screen" || fail "two unsaved epochs:
$(cat "$TMPD/screen")"
tui_keys y
tui_wait "exit=0"
# A lesson's guess step hides the truth, and with it whether a target was met (the lesson
# panel takes the System panel's place).
sed -i '/^allocator = "smqos";$/d' "$cfg"
cat >"$TMPD/guess.cfg" <<'CFG'
title = "QoS, guessed";
summary = "a guess before the truth";
scenario = "qos.cfg";
steps = ( { title = "Guess"; text = "Two targets."; task = "Guess."; question = "Met?";
            run = 1; predict = true; } );
CFG
tui_start 140 40 LC_ALL=C.UTF-8 TERM=xterm -- lesson "$TMPD/guess.cfg"
tui_wait "Your guess, 1 of"
tui_screen >"$TMPD/screen"
[ "$(qos_cell stream)" = "?" ] && [ "$(qos_cell compute)" = "?" ] ||
    fail "hidden QoS: $(cat "$TMPD/screen")"
echo "tui qos: ok"
