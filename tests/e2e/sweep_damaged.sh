#!/usr/bin/env bash
# corun sweep on a catalog whose sweep results are damaged: an error with exit status 2, not an
# empty table with exit 0 (a damaged table page), nor every item run again and stored twice
# (a damaged index of the results, which found none of them). `sweep merge` of a damaged
# catalog names it, not the healthy catalog merged into, and merges nothing; a failed merge
# into a catalog not there before leaves none.
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"
cd "$TMPD"
suite="$top_srcdir/tests/data/good/tiny-suite.cfg"
"$CORUN" sweep "$suite" --catalog good.db >out 2>&1 || fail "first sweep: exit $? $(cat out)"
# 200 bytes of 0xff into the first page of the table (table) or of its unique index (index).
damage() {
    python3 - "$1" "$2" <<'PY'
import sqlite3, sys
path, what = sys.argv[1], sys.argv[2]
con = sqlite3.connect(path)
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
size = con.execute("PRAGMA page_size").fetchone()[0]
kind = "table" if what == "table" else "index"
page = con.execute("SELECT rootpage FROM sqlite_master WHERE type = ? AND tbl_name = "
                   "'sweep_results' AND (type = 'table' OR name LIKE 'sqlite_autoindex%')",
                   (kind,)).fetchone()[0]
con.close()
with open(path, "r+b") as f:
    f.seek((page - 1) * size + 8)
    f.write(b"\xff" * 200)
PY
}
for what in table index; do
    cp good.db "$what.db"
    damage "$what.db" "$what"
    rc=0
    "$CORUN" sweep "$suite" --catalog "$what.db" >out 2>err || rc=$?
    [ $rc = 2 ] || fail "$what damaged: exit $rc $(cat out err)"
    grep -q "^corun: sweep: catalog $what.db is damaged (On tree page [0-9]* .*) while checking its sweep results; restore it from a backup or use --catalog$" err ||
        fail "$what damaged: $(cat err)"
    grep -q 'run now' out && fail "$what damaged: items run: $(cat out)"
    "$CORUN" sweep "$suite" --combos hsm:static --catalog into.db >/dev/null 2>&1 ||
        fail "into.db: exit $?"
    rc=0
    "$CORUN" sweep merge "$what.db" --catalog into.db >out 2>err || rc=$?
    [ $rc = 2 ] || fail "merge, $what damaged: exit $rc $(cat out err)"
    grep -q "^corun: sweep merge: catalog $what.db is damaged (On tree page [0-9]* .*) while reading it to merge; nothing merged$" err ||
        fail "merge, $what damaged: $(cat err)"
    n=$("$CORUN" runs --catalog into.db query "SELECT count(*) FROM sweep_results" | tail -1)
    [ "$n" = 4 ] || fail "merge, $what damaged: into.db holds $n results, expected its 4"
done
# A merge that fails before merging anything leaves no new catalog behind (an empty one was
# made at --catalog's path).
for from in "sp ace" table.db; do
    rc=0
    "$CORUN" sweep merge "$from" --catalog new.db >out 2>err || rc=$?
    [ $rc = 2 ] || fail "merge $from into a new catalog: exit $rc $(cat out err)"
    [ ! -e new.db ] || fail "merge $from: a new catalog was left behind: $(ls new.db*)"
done
exit 0
