#!/usr/bin/env bash
# `corun runs add RUN.h5`: a run whose catalog failed at its end keeps its file and names the
# command, which adds the row `run --out` would have added (the same values, spatial and
# accelerator); the same file given again, by another path, is not added twice; a file that is
# no run file, or a damaged one, is refused with exit status 2 and nothing added. And runs list
# and show mark a row whose file is missing or no run file any more. A file still being
# recorded is refused (exit status 2): the run adds its own row when it ends.
. "$(dirname "$0")/../lib.sh"
small="$top_srcdir/tests/data/good/small.cfg"
cat="$TMPD/cat.db"

# The catalog fails at the end of the run: once the run has made its file (its catalog was
# checked writable before), the catalog's path becomes a directory. The run's 12 epochs take
# seconds after its file appears; the swap takes a moment.
"$CORUN" run "$small" --epochs 1 --catalog "$cat" >/dev/null 2>&1 || fail "a run to make the catalog"
set +e
"$CORUN" run "$small" --epochs 12 --out "$TMPD/lk.h5" --catalog "$cat" >/dev/null 2>"$TMPD/err" &
pid=$!
for _ in $(seq 600); do
    [ -e "$TMPD/lk.h5" ] && break
    sleep 0.05
done
# While it records, the file is refused: its row would hold the epochs so far, and the run
# adds its own at its end (two rows of one file, one wrong for good).
"$CORUN" runs add "$TMPD/lk.h5" --catalog "$TMPD/live.db" >/dev/null 2>"$TMPD/live.err"
live_rc=$?
mv "$cat" "$TMPD/cat.moved"
mkdir "$cat"
wait "$pid"
rc=$?
set -e
rmdir "$cat"
mv "$TMPD/cat.moved" "$cat"
[ $live_rc = 2 ] && [ ! -e "$TMPD/live.db" ] &&
    grep -qxF "corun: runs add: $TMPD/lk.h5: still being recorded; the corun recording it adds its row when it ends; nothing added" "$TMPD/live.err" ||
    fail "runs add of a file being recorded: exit $live_rc: $(cat "$TMPD/live.err")"
[ $rc = 1 ] && grep -q "^corun: the run is in $TMPD/lk.h5, but the catalog failed: catalog $cat is a directory" "$TMPD/err" &&
    grep -qxF "corun: the file is kept: add it later with \`corun runs add $TMPD/lk.h5 --catalog $cat\`" "$TMPD/err" ||
    fail "a run whose catalog failed: exit $rc: $(cat "$TMPD/err")"
"$CORUN" runs --catalog "$cat" list | grep -q "$TMPD/lk.h5" && fail "the failed catalog has the run's row"

# The command it named adds the row, with the run's 12 epochs; given again (another path to
# the same file, a symbolic link) it is said to be there and not added twice.
"$CORUN" runs add "$TMPD/lk.h5" --catalog "$cat" >"$TMPD/out" 2>"$TMPD/err" ||
    fail "runs add: exit $?: $(cat "$TMPD/err")"
grep -qxF "added $TMPD/lk.h5 to the catalog as run 1" "$TMPD/out" || fail "runs add said: $(cat "$TMPD/out")"
"$CORUN" runs --catalog "$cat" show 1 >"$TMPD/show" || fail "runs show 1"
grep -qxF "  file       $TMPD/lk.h5" "$TMPD/show" && grep -q "^  epochs     12 of 20000 cycles" "$TMPD/show" ||
    fail "the added run: $(cat "$TMPD/show")"
ln -s lk.h5 "$TMPD/link.h5"
for again in "$TMPD/lk.h5" "$TMPD/./lk.h5" "$TMPD/link.h5"; do
    (cd "$TMPD" && "$CORUN" runs add "$again" --catalog "$cat") >"$TMPD/out" 2>"$TMPD/err" ||
        fail "runs add $again, again: exit $?: $(cat "$TMPD/err")"
    grep -qF "$again is in the catalog already, as run 1 (\`corun runs show 1\`); not added again" "$TMPD/out" ||
        fail "runs add $again, again: $(cat "$TMPD/out")"
done
(cd "$TMPD" && "$CORUN" runs add lk.h5 --catalog cat.db) >"$TMPD/out" 2>&1 && grep -q "already" "$TMPD/out" ||
    fail "runs add, a relative path: $(cat "$TMPD/out")"
[ "$("$CORUN" runs --catalog "$cat" query "SELECT count(*) FROM runs")" = "count(*)
1" ] || fail "runs add added a file twice: $("$CORUN" runs --catalog "$cat" list)"
# runs query writes SQL NULL \N, apart from the text 'NULL' and an empty text (NULL read NULL).
"$CORUN" runs --catalog "$cat" query "SELECT NULL AS n, 'NULL' AS t, '' AS e, 'a\b' AS b" >"$TMPD/out"
printf 'n\tt\te\tb\n\\N\tNULL\t\ta\\\\b\n' | cmp -s - "$TMPD/out" || fail "runs query's NULL: $(cat -A "$TMPD/out")"

# The row is the one `run --out` adds: a spatial run with a predictor, an allocator, --set and
# a kernel added, and an accelerator run, each recorded into one catalog and added to another.
"$CORUN" run "$small" --epochs 3 --predictor hsm --allocator fair --set epoch_cycles=10000 \
    --add 2:teach-stream --out "$TMPD/r1.h5" --catalog "$TMPD/c1.db" >/dev/null 2>&1 || fail "run r1"
"$CORUN" run "$top_srcdir/tests/data/good/accel-quick.cfg" --out "$TMPD/r2.h5" --catalog "$TMPD/c1.db" \
    >/dev/null 2>&1 || fail "run r2 (accelerator)"
"$CORUN" runs add "$TMPD/r1.h5" --catalog "$TMPD/c2.db" >/dev/null || fail "runs add r1"
"$CORUN" runs add "$TMPD/r2.h5" --catalog "$TMPD/c2.db" >"$TMPD/out" || fail "runs add r2"
grep -qxF "added $TMPD/r2.h5 to the catalog as run a1" "$TMPD/out" || fail "runs add r2 said: $(cat "$TMPD/out")"
# Every column but created_utc: the file's is when it was begun, the catalog's when it ended.
q="SELECT run_path, scenario_name, scenario_path, gpu, mix, predictor, allocator, seed, epochs,
    epoch_cycles, corun_version, mean_stp, mean_antt, mean_fairness, min_fairness, mean_are,
    max_are FROM runs"
qa="SELECT run_path, scenario_name, scenario_path, gpu, predictor, seed, complete, sim_ms, gpu_util,
    tasks_done, a.* FROM accel_runs JOIN accel_run_apps a ON a.run_id = accel_runs.id"
for query in "$q" "$qa"; do
    "$CORUN" runs --catalog "$TMPD/c1.db" query "$query" >"$TMPD/q1" || fail "query c1: $query"
    "$CORUN" runs --catalog "$TMPD/c2.db" query "$query" >"$TMPD/q2" || fail "query c2: $query"
    [ "$(wc -l <"$TMPD/q1")" -ge 2 ] || fail "c1: $(cat "$TMPD/q1")"
    diff "$TMPD/q1" "$TMPD/q2" >"$TMPD/diff" || fail "runs add's row differs from run --out's:
$(cat "$TMPD/diff")"
done

# Adds of one file at once add it once. While another process holds the catalog's write lock,
# two adds of r1.h5 and one of r2.h5 (an accelerator run's add, in the same transaction) start:
# each looked for the file's row, found none and waited to add it, so r1.h5 got two rows (the
# look and the add were not one transaction); now each waits before it looks, and the first
# add's row is there for the other.
"$top_builddir/tests/catalog_locker" hold "$TMPD/c3.db" 0.6 "$TMPD/ready" &
holder=$!
for _ in $(seq 200); do
    [ -e "$TMPD/ready" ] && break
    sleep 0.02
done
pids=
for f in r1 r1 r2; do
    "$CORUN" runs add "$TMPD/$f.h5" --catalog "$TMPD/c3.db" >>"$TMPD/adds" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "runs add at once: exit $?: $(cat "$TMPD/adds")"; done
wait "$holder" || fail "the lock holder failed"
[ "$("$CORUN" runs --catalog "$TMPD/c3.db" query "SELECT (SELECT count(*) FROM runs WHERE
    run_path LIKE '%/r1.h5') || ' ' || (SELECT count(*) FROM accel_runs WHERE run_path LIKE
    '%/r2.h5') AS n" | tail -1)" = "1 1" ] && [ "$(grep -c "not added again" "$TMPD/adds")" = 1 ] ||
    fail "adds of one file at once: $(cat "$TMPD/adds"; "$CORUN" runs --catalog "$TMPD/c3.db" list)"

# No run file, or a damaged one: refused, naming the file and what is wrong; nothing added.
head -c 3000 "$TMPD/lk.h5" >"$TMPD/cut.h5"
echo garbage >"$TMPD/garbage.h5"
: >"$TMPD/empty.h5"
while IFS='|' read -r file want; do
    expect_bad "runs add $file" "^corun: runs add: $TMPD/$file: $want.*; nothing added\$" \
        "$CORUN" runs add "$TMPD/$file" --catalog "$cat"
done <<'EOF'
missing.h5|cannot open: No such file or directory
garbage.h5|not an HDF5 file (no HDF5 signature), so not a run file
empty.h5|empty file (0 bytes), not a run file
cut.h5|truncated: the file has 3000 bytes
EOF
expect_bad "runs add SCENARIO" "runs add: $small: a scenario, not a run file" \
    "$CORUN" runs add "$small" --catalog "$cat"
expect_bad "runs add, no file" "runs add: expected a run file (RUN.h5) after it" \
    "$CORUN" runs add --catalog "$cat"
[ "$("$CORUN" runs --catalog "$cat" query "SELECT count(*) FROM runs")" = "count(*)
1" ] || fail "a refused file was added: $("$CORUN" runs --catalog "$cat" list)"

# A row whose file was moved, removed or overwritten says so: list marks it (a glance at the
# file), show also says why (it reads the file, so it finds one damaged, or of the other kind,
# too). They said nothing, and the path looked as good as any.
"$CORUN" runs --catalog "$TMPD/c1.db" list >"$TMPD/list" || fail "runs list c1"
! grep -q "(missing)\|(not a run file)" "$TMPD/list" || fail "runs list marks good files: $(cat "$TMPD/list")"
"$CORUN" runs --catalog "$TMPD/c1.db" show 1 >"$TMPD/show" && grep -qxF "  file       $TMPD/r1.h5" "$TMPD/show" ||
    fail "runs show, a good file: $(cat "$TMPD/show")"
mv "$TMPD/r1.h5" "$TMPD/moved.h5"
echo garbage >"$TMPD/r2.h5"
"$CORUN" runs --catalog "$TMPD/c1.db" list >"$TMPD/list" || fail "runs list, files gone"
grep -q "^ *1 .*  $TMPD/r1.h5 (missing)\$" "$TMPD/list" && grep -q "^ *a1 .*  $TMPD/r2.h5 (not a run file)\$" "$TMPD/list" ||
    fail "runs list, a file moved and one overwritten: $(cat "$TMPD/list")"
"$CORUN" runs --catalog "$TMPD/c1.db" show 1 >"$TMPD/show" || fail "runs show 1, moved"
grep -qxF "  file       $TMPD/r1.h5 (missing)" "$TMPD/show" &&
    grep -qxF "             no such file: moved or removed since the run was catalogued" "$TMPD/show" ||
    fail "runs show, a file moved: $(cat "$TMPD/show")"
"$CORUN" runs --catalog "$TMPD/c1.db" show a1 >"$TMPD/show" || fail "runs show a1, overwritten"
grep -qxF "  file       $TMPD/r2.h5 (not a run file)" "$TMPD/show" &&
    grep -qxF "             not an HDF5 file (no HDF5 signature), so not a run file" "$TMPD/show" ||
    fail "runs show, a file overwritten: $(cat "$TMPD/show")"
# An HDF5 file of the other kind passes list's glance; show reads it and says what it is.
"$CORUN" run "$top_srcdir/tests/data/good/accel-quick.cfg" --out "$TMPD/r1.h5" >/dev/null 2>&1 || fail "an accelerator run at r1.h5"
"$CORUN" runs --catalog "$TMPD/c1.db" show 1 >"$TMPD/show" || fail "runs show 1, the other kind"
grep -qxF "  file       $TMPD/r1.h5 (not a run file)" "$TMPD/show" &&
    grep -q "^             an accelerator run file" "$TMPD/show" ||
    fail "runs show, an accelerator run file at a spatial run's path: $(cat "$TMPD/show")"
# A truncated copy: list's glance finds it (its superblock says how long it is).
head -c 20000 "$TMPD/lk.h5" >"$TMPD/cut.h5" && mv "$TMPD/cut.h5" "$TMPD/lk.h5"
"$CORUN" runs --catalog "$cat" list | grep -q "  $TMPD/lk.h5 (not a run file)\$" ||
    fail "runs list, a truncated file: $("$CORUN" runs --catalog "$cat" list)"
"$CORUN" runs --catalog "$cat" show 1 | grep -q "^             truncated: the file has 20000 bytes" ||
    fail "runs show, a truncated file: $("$CORUN" runs --catalog "$cat" show 1)"
echo "runs add: a run whose catalog failed was added later, once, as run --out adds it; runs list and show mark files gone"
