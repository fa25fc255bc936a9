#!/usr/bin/env bash
# The workbench opens in a 100x30 tmux pane on the default scenario, shows the version, the
# scenario's name and the key bar, and quits on q.
. "$(dirname "$0")/../lib.sh"
version=$("$CORUN" --version | cut -d' ' -f2)
tui_start 100 30 TERM=xterm --
tui_wait "corun $version"
tui_wait "Scenario: stream + pf on hbm80"
tui_wait "GPU: hbm80, 80 SMs"
tui_wait "q Quit"
tui_keys q
tui_wait "exit=0"
echo "tui smoke: version, scenario and quit on q"
