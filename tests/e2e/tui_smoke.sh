#!/usr/bin/env bash
# The workbench opens in a 100x30 tmux pane on the default scenario, shows the version, the
# scenario's name and the key bar, and quits on q. A scenario's narrative (its `lesson`
# setting, which nothing showed before) is on the empty chart before the first epoch, or a
# pointer to the help where it does not fit, and in the help; not while a lesson narrates.
. "$(dirname "$0")/../lib.sh"
version=$("$CORUN" --version | cut -d' ' -f2)
tui_start 100 30 TERM=xterm --
tui_wait "corun $version"
tui_wait "Scenario: stream + pf on hbm80"
tui_wait "GPU: hbm80, 80 SMs"
tui_wait "q Quit"
tui_wait "About this scenario: ? shows it" # the default's narrative does not fit at 100x30
tui_keys '?'
tui_wait "Page 1 of 2"
tui_keys Space
tui_wait "This scenario: The streaming kernel keeps nearly all its speed"
tui_keys Escape
tui_keys q
tui_wait "exit=0"

# Where it fits, the narrative itself; gone with the first epoch (the chart takes the panel).
{
    grep -v '^lesson' "$top_srcdir/tests/data/good/tui_fast.cfg"
    echo 'lesson = "Told before the first epoch, gone after it.";'
} >"$TMPD/told.cfg"
tui_start 100 30 TERM=xterm -- tui "$TMPD/told.cfg"
tui_wait "About this scenario"
tui_wait "Told before the first epoch, gone after it."
tui_keys Space
tui_wait "e1 done"
tui_screen | grep -q "Told before" && fail "the narrative outlived the first epoch: $(tui_screen)"
tui_keys q
tui_wait "quit without saving?"
tui_keys y
tui_wait "exit=0"
# A mix change waiting for the first boundary makes it another mix than the one described.
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- tui "$TMPD/told.cfg"
tui_wait "Told before the first epoch, gone after it."
tui_keys k
tui_wait "+ add a kernel from the library"
tui_keys Down Down Enter
tui_wait "Add a kernel"
tui_keys -l lbm
tui_wait "Filter: lbm_"
tui_keys Enter
tui_wait "Pending: +lbm"
tui_keys Escape
tui_gone "+ add a kernel from the library"
tui_screen | grep -q "Told before" && fail "the narrative stayed with a mix change pending: $(tui_screen)"
tui_keys q
tui_wait "exit=0"
# A lesson on a scenario with a narrative (hsm-fair on demo-pair.cfg) narrates in its own panel.
grep -q '^lesson = ' "$top_srcdir/scenarios/demo-pair.cfg" || fail "demo-pair.cfg has no narrative"
tui_start 200 60 LC_ALL=C.UTF-8 TERM=xterm -- lesson hsm-fair
tui_wait "Epoch 0/"
tui_screen | grep -q "About this scenario" && fail "a lesson shows the scenario's narrative: $(tui_screen)"
tui_keys q
echo "tui smoke: version, scenario, its narrative and quit on q"
