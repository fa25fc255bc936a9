#!/usr/bin/env bash
# docs/accelerator.md's scale-out cluster table and prophet's choice in every cell are what
# tools/scaleout-rows.py makes of the doc's 385 rows and the kept journal, and every record of
# the journal agrees with its row. Usage: check_scaleout_rows.sh (through make check).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
doc=$top_srcdir/docs/accelerator.md
python3 "$top_srcdir/tools/scaleout-rows.py" "$doc" "$top_srcdir/docs/journals/prophet-scaleout.journal" \
    >"$TMPD/tables" || fail "tools/scaleout-rows.py"
[ "$(grep -c '^|' "$TMPD/tables")" -eq $((7 + 2 + 35)) ] || fail "expected 7 + 2 + 35 table lines"
python3 - "$TMPD/tables" "$doc" <<'PY' || fail "docs/accelerator.md's scale-out tables lag the rows (above)"
import sys
tables, doc = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
missing = [line for line in tables.split("\n") if line and line not in doc.split("\n")]
for line in missing:
    print("not in docs/accelerator.md:", line, file=sys.stderr)
sys.exit(1 if missing else 0)
PY
# A row edited against its record is caught.
sed "s/^| pos | pf-ex | 50 % | 0, 1.00×/| pos | pf-ex | 50 % | 1, 1.00×/" "$doc" >"$TMPD/edited.md"
! cmp -s "$doc" "$TMPD/edited.md" || fail "the edit did not apply"
if python3 "$top_srcdir/tools/scaleout-rows.py" "$TMPD/edited.md" \
    "$top_srcdir/docs/journals/prophet-scaleout.journal" >/dev/null 2>"$TMPD/err"; then
    fail "a row that differs from its record was accepted"
fi
grep -q "pos beside pf-ex at 50 %" "$TMPD/err" || fail "the message names the cell: $(cat "$TMPD/err")"
# A journal cut short is refused with a message, not a traceback.
head -c 300 "$top_srcdir/docs/journals/prophet-scaleout.journal" >"$TMPD/short.journal"
if python3 "$top_srcdir/tools/scaleout-rows.py" "$doc" "$TMPD/short.journal" >/dev/null 2>"$TMPD/err"; then
    fail "a journal cut short was accepted"
fi
grep -q "short.journal: expected records of" "$TMPD/err" || fail "the message: $(cat "$TMPD/err")"
# The SM busy share is in the records only: a journal that lacks a cell gives the table
# without it (the rows stand in for the cell), a whole one with it.
j=$top_srcdir/docs/journals/prophet-scaleout.journal
rec=$((24 + $(sed -n '2s/.*| result \([0-9]*\) bytes$/\1/p' "$j")))
head -c $(($(wc -c <"$j") - rec)) "$j" >"$TMPD/less.journal"
python3 "$top_srcdir/tools/scaleout-rows.py" "$doc" "$TMPD/less.journal" >"$TMPD/less" 2>&1 ||
    fail "a journal one record short: $(cat "$TMPD/less")"
! grep -q "SM busy" "$TMPD/less" || fail "the SM busy share from a journal that lacks a cell"
grep -q "^| decider .* MPS slots | co-located" "$TMPD/less" || fail "the table without it: $(head -1 "$TMPD/less")"
grep -q "^| decider .* MPS slots | SM busy (LS GPUs) | co-located" "$TMPD/tables" ||
    fail "the whole kept journal's table has no SM busy share: $(head -1 "$TMPD/tables")"
