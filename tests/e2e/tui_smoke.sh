#!/usr/bin/env bash
# The workbench opens in a 100x30 tmux pane on the default scenario, shows the version and the
# scenario's name, and quits on q.
. "$(dirname "$0")/../lib.sh"
tmux=${TMUX_BIN:-$(command -v tmux || true)}
[ -n "$tmux" ] || skip "tmux not found"
sock="$TMPD/tmux.sock"
t() { "$tmux" -S "$sock" "$@"; }
trap 't kill-server 2>/dev/null; rm -rf "$TMPD"' EXIT

version=$("$CORUN" --version | cut -d' ' -f2)
t new-session -d -x 100 -y 30 -s smoke \
    "env CORUN_DATADIR='$top_srcdir' TERM=xterm '$CORUN'; echo \"exit=\$?\"; sleep 30"
wait_for() { # TEXT
    for _ in $(seq 1 100); do
        t capture-pane -p -t smoke >"$TMPD/screen" 2>/dev/null || true
        grep -qF -- "$1" "$TMPD/screen" && return 0
        sleep 0.1
    done
    fail "screen never showed '$1':
$(cat "$TMPD/screen")"
}
wait_for "corun $version"
wait_for "Scenario: stream + compute on hbm80"
wait_for "q Quit"
t send-keys -t smoke q
wait_for "exit=0"
echo "tui smoke: version, scenario and quit on q"
