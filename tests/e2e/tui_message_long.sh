#!/usr/bin/env bash
# A message longer than the screen: Enter on the lesson panel opens the whole step, and a step
# of some 5,500 characters (more than the 2,048 a message once held, and than the 4,096 the
# lesson panel once formatted) does not fit 80x24. The window then shows a page and says which
# lines ("Lines 1-18 of N"); Space and PgDn go a page on, Down and Up a line, End to the last
# page, where the step's last words are, and Space there continues (closes it). On a screen
# where the whole text fits, the window has no line count and any key closes it.
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"

python3 - "$TMPD/long.cfg" <<'PY'
import sys
text = " ".join("Sentence %d says one more thing about the LLC and its sharing." % i
                for i in range(1, 90))
assert len(text) > 5000
open(sys.argv[1], "w").write('''title = "Long";
summary = "a step longer than the screen";
scenario = "default.cfg";
steps = (
  { title = "A long step"; text = "%s";
    task = "Read all of it."; notice = "THE LAST WORDS OF THE STEP."; },
  { title = "A short step"; text = "Short."; notice = "SHORT STEP ENDS."; }
);
''' % text)
PY
"$CORUN" check "$TMPD/long.cfg" >/dev/null 2>"$TMPD/err" || fail "check: $(cat "$TMPD/err")"

# A-B of N, from the overlay's closing line "Lines A-B of N: ..." (nothing when it has none);
# tui_wait "│ Lines A-B of N: " waits for a page.
lines_shown() { tui_screen | sed -n 's/.*│ Lines \([0-9]*-[0-9]* of [0-9]*\): .*/\1/p'; }

tui_start 80 24 -- lesson "$TMPD/long.cfg"
tui_wait "Enter shows the whole step"
tui_keys Tab Tab Tab # the lesson panel
tui_wait "[ Lesson 1/2"
tui_keys Enter
tui_wait "Step 1 of 2: A long step"
# 80 columns: the frame is 76 wide and its text 72; 24 rows: 22 for the frame, 18 for text.
total=$(python3 - "$TMPD/long.cfg" <<'PY'
import re, sys, textwrap
src = open(sys.argv[1]).read()
text = re.search(r'text = "([^"]*)"', src).group(1)
paras = ["Step 1 of 2: A long step", text, "Do: Read all of it.", "Notice: THE LAST WORDS OF THE STEP."]
print(sum(len(textwrap.wrap(p, 72, break_on_hyphens=False)) for p in paras))
PY
)
[ "$total" -gt 60 ] || fail "the step wraps to only $total lines"
tui_wait "│ Lines 1-18 of $total: "
tui_screen | grep -q "Space or Down shows more; another key continues\." ||
    fail "no hint on the first page: $(tui_screen)"
! tui_screen | grep -q "THE LAST WORDS" || fail "the last words on the first page"
tui_keys Space
tui_wait "│ Lines 19-36 of $total: "
tui_keys Down
tui_wait "│ Lines 20-37 of $total: "
tui_keys Up Up
tui_wait "│ Lines 18-35 of $total: "
tui_keys NPage
tui_wait "│ Lines 36-53 of $total: "
tui_keys PPage
tui_wait "│ Lines 18-35 of $total: "
tui_keys End
tui_wait "│ Lines $((total - 17))-$total of $total: "
tui_screen | grep -q "│ Notice: THE LAST WORDS OF THE STEP\. " || fail "End: no last words: $(tui_screen)"
tui_screen | grep -q "Up goes back; another key continues\." || fail "End: no hint: $(tui_screen)"
tui_keys Down # past the end: stays
tui_wait "│ Lines $((total - 17))-$total of $total: "
tui_keys Home
tui_wait "│ Lines 1-18 of $total: "
tui_keys End Space # Space on the last page continues
tui_gone "Lines "
[ -z "$(lines_shown)" ] || fail "Space on the last page did not close it: $(tui_screen)"

# Opened again, it starts at its top; a larger screen shows it whole, with no line count.
tui_resize 100 100
tui_keys Enter
tui_wait "Press any key to continue."
tui_screen | grep -q "│ Notice: THE LAST WORDS OF THE STEP\. " || fail "100x100: not whole: $(tui_screen)"
[ -z "$(lines_shown)" ] || fail "100x100: a line count: $(tui_screen)"
tui_keys Space
tui_gone "Press any key to continue."

# A screen shrunk while scrolled keeps the page within the text.
tui_resize 80 24
tui_keys Enter
tui_wait "│ Lines 1-18 of $total: "
tui_keys End
tui_resize 80 40
tui_wait "│ Lines $((total - 33))-$total of $total: "
tui_keys Escape
tui_gone "Lines "
tui_keys q
tui_wait "exit=0"
echo "tui message long: pages, lines, the end, a screen that fits"
