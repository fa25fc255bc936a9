#!/usr/bin/env bash
# The workbench uses the machine's CPUs (at most 8) for a run's private-mode references and
# its shared run, as `corun run --threads` does by default (corun.1 says so of the workbench):
# `corun tui` did, but `corun lesson` and `corun replay`'s branches ran on one thread. Each
# opens a scenario whose epochs take about a second and steps one (the replay: branches);
# while it computes, the process must have more threads than the screen's two (the main
# thread and the simulation's worker). Results do not depend on the count; nothing is timed.
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir"
[ "$(nproc)" -ge 2 ] || skip "one CPU: the workbench uses one thread"

cat >"$TMPD/slow.cfg" <<'CFG'
name = "slow pair";
gpu = "hbm80";
gpu_overrides = { sms = 16; };
epochs = 4;
epoch_cycles = 200000;
kernels = ( { name = "stream"; }, { name = "compute"; } );
CFG
cat >"$TMPD/slow-lesson.cfg" <<'CFG'
title = "threads";
summary = "a slow pair";
scenario = "slow.cfg";
steps = ( { title = "one"; } );
CFG

# Starts the workbench on ARGS with an empty trace cache, presses KEY (after WAIT shows), and
# fails unless corun has more than two threads at some moment before DONE shows.
more_threads() { # WHAT WAIT KEY DONE ARGS...
    local what=$1 wait=$2 key=$3 done=$4 pid n max=0 deadline
    shift 4
    rm -rf "$TMPD/xdg"
    tui_start 100 30 XDG_DATA_HOME="$TMPD/xdg" -- "$@"
    tui_wait "$wait"
    pid=$(tui_corun_pid)
    [ -n "$pid" ] || fail "$what: no corun"
    tui_keys "$key"
    deadline=$((SECONDS + 300))
    while [ $SECONDS -lt $deadline ]; do
        n=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
        [ "$n" -gt "$max" ] && max=$n
        tui_screen >"$TMPD/screen" 2>/dev/null || true
        grep -qF -- "$done" "$TMPD/screen" && break
        sleep 0.05
    done
    grep -qF -- "$done" "$TMPD/screen" || fail "$what: the screen never showed '$done'"
    [ "$max" -gt 2 ] || fail "$what: at most $max threads while it computed: one for the simulation"
    tui_keys q y
    tui_wait "exit=0"
    tui_tmux kill-server 2>/dev/null || true
}

more_threads "tui" "Epoch 0/4" Space "Epoch 1/4" tui "$TMPD/slow.cfg"
more_threads "lesson" "Epoch 0/4" Space "Epoch 1/4" lesson "$TMPD/slow-lesson.cfg"
XDG_DATA_HOME="$TMPD/xdg-run" "$CORUN" run "$TMPD/slow.cfg" --epochs 1 --out "$TMPD/r.h5" \
    >/dev/null 2>&1 || fail "run --out"
more_threads "replay's branch" "REPLAY" b "LIVE" replay "$TMPD/r.h5"
echo "tui, lesson and replay's branch simulate on more than one thread"
