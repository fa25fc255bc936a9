#!/usr/bin/env bash
# Predict, then reveal (lesson even-split, step 1): while the step's epochs run and until the
# class has guessed, true NP is "?" and the chart has no true points; Esc leaves the form and g
# opens it again; a guess out of range is refused; the reveal shows each guess beside the
# truth (the numbers a headless run of the same scenario prints) with the error and the score,
# which the run file keeps as a "score" event. The projector theme honours NO_COLOR.
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"
"$CORUN" run "$top_srcdir/scenarios/demo-pair.cfg" --epochs 2 >"$TMPD/run" ||
    fail "the demo pair does not run"
truth() { awk -v k="$1" '$1 == 2 && $2 == k {print $5}' "$TMPD/run"; }
lbm=$(truth lbm)
bino=$(truth bino)
fairness=$(awk '/system:/ {f = $7} END {print f}' "$TMPD/run")
[ -n "$lbm" ] && [ -n "$bino" ] && [ -n "$fairness" ] || fail "no truth in: $(cat "$TMPD/run")"

tui_start 80 24 LC_ALL=C.UTF-8 TERM=xterm -- lesson even-split
tui_wait "Your guess, 1 of 4"
tui_wait "NP of A lbm"
tui_screen >"$TMPD/hidden"
grep -Eq "A lbm +20.0 +[0-9.]+ +\? " "$TMPD/hidden" || fail "lbm's NP is not hidden:
$(cat "$TMPD/hidden")"
grep -q "$lbm" "$TMPD/hidden" && fail "the truth $lbm shows while hidden:
$(cat "$TMPD/hidden")"
lesson_text() { # the lesson panel's words, joined
    tui_screen >"$TMPD/screen"
    tui_panel "Lesson 1/3:" "$TMPD/lesson"
    tr -s ' \n' '  ' <"$TMPD/lesson"
}
guess_all() { # VALUE...: each typed into the form's next field
    local g
    for g in "$@"; do
        tui_keys -l "$g"
        tui_keys Enter
        sleep 0.2
    done
}
form_says() { # TITLE TEXT: the form titled TITLE says TEXT (its lines joined)
    tui_screen >"$TMPD/screen"
    tui_panel "$1" "$TMPD/form"
    tr -s ' \n' '  ' <"$TMPD/form" | grep -qF -- "$2" || fail "the form does not say '$2':
$(cat "$TMPD/screen")"
}
# The form opens beside the lesson, whose step it asks about: the panel stays whole (it
# opened in the middle, over the panel's title and first lines).
lesson_text | grep -q "Step 1 of 3: Guess first .*Question: Does an even split give both kernels the same NP?" ||
    fail "the guess form covers the lesson: $(cat "$TMPD/screen")"
# Esc leaves the form; n refuses to go on; s records the run; g opens the form again.
tui_keys Escape
tui_gone "Your guess, 1 of 4"
tui_keys n
tui_wait "Guess first"
tui_keys x
# The step's text says the truth is hidden until the guesses, and only until then.
lesson_text | grep -q "Predict: the truth is hidden; when the epochs are done, type your guesses." ||
    fail "the hidden step's text does not say so: $(cat "$TMPD/screen")"
tui_keys s
tui_wait "Record this run"
tui_keys C-u
tui_keys -l "$TMPD/class.h5"
tui_keys Enter
tui_wait "Saved"
tui_keys x
tui_gone "Saved"
tui_keys g
tui_wait "Your guess, 1 of 4"
tui_keys -l 7
tui_keys Enter
tui_wait "'7': enter a number from 0 to 4"
tui_keys C-u
tui_keys -l 0.9
tui_keys Enter
tui_wait "Your guess, 2 of 4"
form_says "Your guess, 2 of 4" "NP of B bino (0 to 4, as in the NP true column):"
tui_keys -l 0.5
tui_keys Enter
# Each field says the range it takes (the NP and fairness fields said 0 to 1 and took 1.5).
tui_wait "Your guess, 3 of 4"
form_says "Your guess, 3 of 4" "Fairness (min NP / max NP, 0 to 1):"
tui_keys -l 1.4
tui_keys Enter
tui_wait "'1.4': enter a number from 0 to 1"
tui_keys C-u
tui_keys -l 0.5
tui_keys Enter
tui_wait "Your guess, 4 of 4"
form_says "Your guess, 4 of 4" "STP (the sum of the NPs, 0 to 8):"
tui_keys -l 1.5
tui_keys Enter
tui_wait "Reveal"
tui_screen >"$TMPD/reveal"
grep -Eq "NP A lbm +guess +0.900 +true +$lbm +error" "$TMPD/reveal" || fail "no lbm line:
$(cat "$TMPD/reveal")"
grep -Eq "NP B bino +guess +0.500 +true +$bino +error" "$TMPD/reveal" || fail "no bino line:
$(cat "$TMPD/reveal")"
grep -Eq "Fairness +guess +0.500 +true +$fairness +error" "$TMPD/reveal" ||
    fail "no fairness line:
$(cat "$TMPD/reveal")"
# The score counts the guesses within 10 % of the truth, each marked +1 on its line.
python3 - "$TMPD/reveal" <<'PY' || fail "the score is not the guesses within 10%:
$(cat "$TMPD/reveal")"
import re, sys
text = open(sys.argv[1]).read()
lines = re.findall(r"guess +([0-9.]+) +true +([0-9.]+) +error +([0-9.]+)%( +\+1)?", text)
assert len(lines) == 4, lines
hits = 0
for guess, true, err, mark in lines:
    e = abs(float(guess) - float(true)) / float(true)
    assert abs(e * 100 - float(err)) < 0.1, (guess, true, err)
    assert bool(mark) == (e <= 0.10), (guess, true, mark)
    hits += bool(mark)
want = "Score: step 1, epoch 2: %d of 4 guesses within 10%%; lesson so far %d of 4" % (hits, hits)
assert want in text, want
PY
tui_keys x
tui_gone "Reveal"
tui_wait "$lbm"
lesson_text | grep -q "Predict: the truth is hidden" && fail "the step still says the truth is hidden"
tui_keys q
tui_wait "exit=0"
"$CORUN" show "$TMPD/class.h5" >"$TMPD/shown" || fail "corun show cannot read the class's run"
grep -Eq "score.*step 1, epoch 2: [0-4] of 4 guesses" "$TMPD/shown" || fail "no score event:
$(cat "$TMPD/shown")"
grep -q "lesson.*even-split, step 1 of 3: Guess first" "$TMPD/shown" || fail "no lesson event:
$(cat "$TMPD/shown")"

# A predict step that runs no epoch says that the class guesses the next one and Space steps
# it (g said "the step's epochs are still running" with nothing running); the score names the
# step that asked even when N shows another; o opening another run ends the lesson (its
# steps then acted on the run opened).
cp "$top_srcdir/tests/data/good/tui_fast.cfg" "$TMPD/fast.cfg"
cat >"$TMPD/own.cfg" <<'EOF'
title = "Own"; summary = "a predict step without epochs"; scenario = "fast.cfg";
steps = ( { title = "Start"; run = 1; },
          { title = "Predict the next"; predict = true; },
          { title = "After"; run = 1; } );
EOF
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- lesson "$TMPD/own.cfg"
tui_wait "Epoch 1/10"
tui_keys n
tui_wait "Step 2 of 3"
tui_keys g
tui_wait "The class guesses epoch 2: Space steps it (r runs), then the form opens."
tui_keys x
tui_keys n
tui_wait "Guess first. The class guesses epoch 2"
tui_keys x
tui_keys Space
tui_wait "Your guess, 1 of 4"
tui_keys Escape N
tui_wait "Step 1 of 3"
tui_keys g
tui_wait "Your guess, 1 of 4"
guess_all 0.5 0.5 0.9 1.0
tui_wait "Reveal"
tui_wait "Score: step 2, epoch 2: "
tui_keys x o
tui_wait "open another run without saving? y/n"
tui_keys y
tui_wait "Replay the run file"
tui_keys C-u
tui_keys -l "$TMPD/class.h5"
tui_keys Enter
tui_wait "REPLAY"
tui_wait "lesson own closed"
tui_gone "Lesson 1/3"
tui_keys n
tui_wait "REPLAY"
tui_screen | grep -q "Step 2 of 3" && fail "the lesson still acts on the opened run"
tui_keys q
tui_wait "exit=0"

# Outside a lesson, G steps one epoch with its truth hidden; the reveal scores the run.
tui_start 100 30 LC_ALL=C.UTF-8 TERM=xterm -- tui "$top_srcdir/tests/data/good/tui_fast.cfg"
tui_wait "Epoch 0/10"
tui_keys G
tui_wait "Your guess, 1 of 4"
tui_wait "NP of A stream"
grep -Eq "A stream +8.0 +[0-9.]+ +\? " "$TMPD/screen" || fail "stream's NP is not hidden:
$(cat "$TMPD/screen")"
# The explain panel says why it is empty, wrapped (it was cut mid-word: "... guessed (pred").
tui_keys Escape
tui_gone "Your guess, 1 of 4"
tui_wait "then reveal)"
# Space while the class guesses would step another epoch and score it in this one's place
# (G, Esc, Space, g scored epoch 2): refused with a word; the notice's g opens the form.
tui_keys Space
tui_wait "The class is guessing epoch 1: g opens the form"
tui_keys g
tui_wait "Your guess, 1 of 4"
guess_all 0.5 0.5 0.9 1.0
tui_wait "Reveal"
tui_wait "Score: epoch 1: "
tui_wait "run so far"
tui_keys x q y
tui_wait "exit=0"

# The projector theme: colour without NO_COLOR, none with it; a taller chart at 80x24.
chart_rows() { awk '/NP history/ {on = 1} on && /^└/ {print NR - s; exit} /NP history/ {s = NR}' \
    "$1"; }
tui_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- lesson scaling --theme projector
tui_wait "Epoch 2/12"
tui_screen -e >"$TMPD/proj-color"
tui_screen >"$TMPD/proj"
grep -q $'\e\\[3[0-7]m\|\e\\[38;5' "$TMPD/proj-color" || fail "no colour in the projector theme"
tui_keys q y
tui_wait "exit=0"
tui_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color NO_COLOR=1 -- lesson scaling --theme projector
tui_wait "Epoch 2/12"
tui_screen -e >"$TMPD/proj-mono"
grep -q $'\e\\[3[0-7]m\|\e\\[38;5\|\e\\[4[0-7]m' "$TMPD/proj-mono" && fail "colour despite NO_COLOR"
tui_keys q y
tui_wait "exit=0"
tui_start 80 24 LC_ALL=C.UTF-8 TERM=xterm-256color -- lesson scaling
tui_wait "Epoch 2/12"
tui_screen >"$TMPD/plain"
tui_keys q y
tui_wait "exit=0"
[ "$(chart_rows "$TMPD/proj")" -gt "$(chart_rows "$TMPD/plain")" ] ||
    fail "the projector chart is not taller: $(chart_rows "$TMPD/proj") vs $(chart_rows "$TMPD/plain")"
expect_bad "an unknown theme" 'unknown theme "neon"' "$CORUN" lesson scaling --theme neon
echo "guess: hidden truth, form, refusal, reveal = headless truth, score in the run file; projector"
