#!/usr/bin/env bash
# Random keys: the workbench takes 400 keys drawn from every key it knows (and some it does
# not), with resizes down to below its minimum and back, in bursts and pauses, on a live pair
# (which the draws may record, steer and change), a lesson and an accelerator scenario, then
# still answers: Escape closes what is open, q and y quit, and it exits 0. A crash, a hang (the screen stops answering) or a refused quit fails it. The
# draws are seeded (CORUN_MONKEY_SEED, default 1), so a failure can be replayed; the timing is
# not, which is what the bursts are for. No key quits on its own: q is left out of the draw.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"
seed=${CORUN_MONKEY_SEED:-1}

# N lines of what to do, drawn from SEED: "key NAME" (a tmux key name), "resize W H" or
# "pause" (python3: the test's helper).
draw() { # SEED N
    python3 - "$1" "$2" <<'PY'
import random, sys
rng = random.Random(int(sys.argv[1]))
keys = ["Space", "r", "+", "-", "p", "a", "e", "k", "g", "G", "n", "N", "L", "?", "F1", "Tab",
        "BTab", "Enter", "Escape", "Left", "Right", "Up", "Down", "Home", "End", "PageUp",
        "PageDown", "BSpace", "C-l", "C-u", "s", "o", "d", "h", "x", "y", "0", "1", "2", "5", ".",
        "m", "j", "z"]
sizes = ["80 24", "100 30", "120 40", "60 20", "79 23", "200 60"]
for _ in range(int(sys.argv[2])):
    r = rng.random()
    if r < 0.03:
        print("resize", rng.choice(sizes))
    elif r < 0.06:
        print("pause")
    else:
        print("key", rng.choice(keys))
PY
}

# Keys go to tmux up to 8 at a time, as a fast typist's arrive (one send-keys each cost more
# than the workbench's answer to it: 1,200 tmux runs were about half of this test's time).
monkey() { # SEED
    local keys=()
    while read -r what a b; do
        if [ "$what" = key ]; then
            keys+=("$a")
            [ ${#keys[@]} -lt 8 ] && continue
        fi
        [ ${#keys[@]} -eq 0 ] || tui_keys "${keys[@]}"
        keys=()
        case $what in
            resize) tui_resize "$a" "$b" ;;
            pause) sleep 0.3 ;;
        esac
    done < <(draw "$1" 400)
    [ ${#keys[@]} -eq 0 ] || tui_keys "${keys[@]}"
}

# Back to a size it draws at, every dialog closed, then q (y when it asks).
quit_cleanly() {
    tui_resize 100 30
    local i
    for i in 1 2 3 4; do # a dialog may have opened another (the editor's field, the picker)
        tui_keys Escape
        sleep 0.2
    done
    tui_keys q
    sleep 0.5
    tui_screen >"$TMPD/screen" 2>/dev/null || true
    if grep -q "y/n" "$TMPD/screen"; then tui_keys y; fi
    tui_wait "exit=0" 60
}

mkdir -p "$TMPD/cwd"
cd "$TMPD/cwd" # the save dialog writes its run files here
for target in "tui demo-pair|Epoch 0/" "lesson llc-queues|Epoch 0/" "tui accel-gmm-nn|LIVE paused"; do
    ready=${target#*|}
    target=${target%|*}
    # shellcheck disable=SC2086
    tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- $target
    tui_wait "$ready"
    monkey "$seed"
    # Still running? (A crash leaves the pane in the alternate screen, blank: say so here.)
    sleep 0.5
    [ -n "$(tui_corun_pid)" ] || fail "corun $target ended during the random keys (seed $seed):
$(tui_screen)"
    quit_cleanly
    tui_tmux kill-server
    seed=$((seed + 1))
done
echo "tui monkey: 400 random keys on a pair, a lesson and an accelerator scenario (seeds from ${CORUN_MONKEY_SEED:-1}), quit cleanly"
