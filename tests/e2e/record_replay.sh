#!/usr/bin/env bash
# Recording, replay, branching and the catalog through the CLI: `run --out` then `show` prints
# the same epochs; the same scenario and seed give identical datasets (h5diff); a branch's
# new epochs equal the recorded ones (from the start too; one by default, or none); `runs`
# lists and queries the catalog; bad run files give a message and exit 2; a branch stopped by
# SIGTERM before its branch point says so; SIGKILLs of a recording `corun run` leave readable
# files that hold every epoch it reported.
. "$(dirname "$0")/../lib.sh"
small="$top_srcdir/tests/data/good/small.cfg"
cat="$TMPD/catalog.db"

"$CORUN" run "$small" --epochs 3 --out "$TMPD/a.h5" --catalog "$cat" >"$TMPD/run.txt" 2>"$TMPD/err"
grep -q "recorded 3 epochs in $TMPD/a.h5 (catalog run 1)" "$TMPD/err" || fail "run --out: $(cat "$TMPD/err")"
"$CORUN" show "$TMPD/a.h5" >"$TMPD/show.txt"
[ "$(head -1 "$TMPD/show.txt")" = "small pair (gpu hbm80): 3 epochs of 20000 cycles, seed 7, from $TMPD/a.h5" ] ||
    fail "show's heading: $(head -1 "$TMPD/show.txt")"
"$CORUN" run "$small" --epochs 1 --out "$TMPD/one.h5" >/dev/null 2>&1
[ "$("$CORUN" show "$TMPD/one.h5" | head -1)" = "small pair (gpu hbm80): 1 epoch of 20000 cycles, seed 7, from $TMPD/one.h5" ] ||
    fail "show's heading of one epoch: $("$CORUN" show "$TMPD/one.h5" | head -1)"
diff <(tail -n +2 "$TMPD/run.txt") <(tail -n +2 "$TMPD/show.txt" | grep -v '^event') \
    || fail "show differs from run"

# Determinism: another recording of the same scenario and seed.
"$CORUN" run "$small" --epochs 3 --out "$TMPD/b.h5" --catalog "$cat" >/dev/null 2>&1
if command -v h5diff >/dev/null; then
    for d in /per_kernel /system /partition; do
        h5diff "$TMPD/a.h5" "$TMPD/b.h5" "$d" >"$TMPD/diff" 2>&1 || fail "h5diff $d: $(head "$TMPD/diff")"
    done
fi
"$CORUN" run "$small" --epochs 3 --seed 8 --out "$TMPD/c.h5" --catalog "$cat" >/dev/null 2>&1
cmp -s <("$CORUN" show "$TMPD/a.h5" --json) <("$CORUN" show "$TMPD/c.h5" --json) \
    && fail "another seed recorded identical epochs"

# A branch at 0 goes on as the run did: the run's --predictor and --allocator, made before its
# first epoch, are its set-up (a branch at 0 ran without them). Its lines after the heading and
# the branch's note are the run's first two epochs, the decisions ([repartition]) included. A
# change made at a later branch point (--add before epoch 3, branched after 2) is left for the
# branch to make or not, and the branch says so.
"$CORUN" run "$small" --epochs 4 --predictor hsm --allocator fair --add 3:bh \
    --out "$TMPD/p.h5" >"$TMPD/p.txt" 2>/dev/null || fail "run --predictor --allocator --add"
grep -q '^  \[repartition\] fair' "$TMPD/p.txt" || fail "fair moved no SMs: $(cat "$TMPD/p.txt")"
# show --json names each epoch's predictor as run --json does (it said "recorded").
"$CORUN" show "$TMPD/p.h5" --json | python3 -c '
import json, sys
names = [e["predictor"] for e in json.load(sys.stdin)["epochs"]]
assert names == ["hsm"] * 4, names' || fail "show --json: the epochs' predictor"
"$CORUN" branch "$TMPD/p.h5" 0 --epochs 2 2>/dev/null | tail -n +3 | grep -v '^epoch ' |
    diff <(awk 'NR > 1 && n < 2 && !/^epoch /; /system:/ { n++ }' "$TMPD/p.txt") - >&2 ||
    fail "branch at 0 differs from the run (diff above)"
"$CORUN" branch "$TMPD/p.h5" 2 --epochs 1 >"$TMPD/pb.txt" 2>/dev/null || fail "branch at 2"
grep -qx '  \[note\] not re-applied at the branch point: mix add bh as kernel 2' "$TMPD/pb.txt" ||
    fail "branch at 2 does not say it left the addition out: $(cat "$TMPD/pb.txt")"
grep -q '^    3  bh ' "$TMPD/pb.txt" && fail "branch at 2 added bh: $(cat "$TMPD/pb.txt")"
# So are its --set values: a branch at 0 logs them again, and its own file branches (it
# replayed with the scenario's epoch length and was refused: "simulates differently now").
"$CORUN" run "$small" --epochs 2 --set epoch_cycles=30000 --out "$TMPD/s.h5" >/dev/null 2>&1 ||
    fail "run --set"
"$CORUN" branch "$TMPD/s.h5" 0 --epochs 2 --out "$TMPD/s0.h5" >/dev/null 2>&1 || fail "branch --set at 0"
"$CORUN" show "$TMPD/s0.h5" | grep -q '^event  epoch 0  parameter   set epoch_cycles=30000$' ||
    fail "the branch at 0 lost its --set: $("$CORUN" show "$TMPD/s0.h5")"
"$CORUN" branch "$TMPD/s0.h5" 1 --epochs 1 >"$TMPD/s01.txt" 2>&1 ||
    fail "a branch of the branch at 0: $(cat "$TMPD/s01.txt")"
diff <(grep '^    2 ' "$TMPD/s01.txt") <("$CORUN" show "$TMPD/s.h5" | grep '^    2 ') ||
    fail "the branch of the branch at 0 differs from the run at epoch 2"

# Branch after epoch 2: its first new epoch is the recorded third.
"$CORUN" branch "$TMPD/a.h5" 2 --epochs 1 >"$TMPD/branch.txt" 2>/dev/null
diff <(grep '^    3 ' "$TMPD/run.txt") <(grep '^    3 ' "$TMPD/branch.txt") || fail "branch epoch 3 differs"
grep -qx "$TMPD/a.h5: branched after epoch 2 of 3, 1 more epoch" "$TMPD/branch.txt" ||
    fail "branch heading: $(head -1 "$TMPD/branch.txt")"
# A branch shares the references through the trace cache, as run does: into an empty one it
# stores the two kernels' (and gives the same epochs).
mkdir -p "$TMPD/bx"
XDG_DATA_HOME="$TMPD/bx" "$CORUN" branch "$TMPD/a.h5" 2 --epochs 1 >"$TMPD/branch2.txt" 2>/dev/null
diff "$TMPD/branch.txt" "$TMPD/branch2.txt" || fail "a branch with an empty trace cache differs"
n=$(XDG_DATA_HOME="$TMPD/bx" "$CORUN" runs query "SELECT count(*) FROM solo_traces" | tail -1)
[ "$n" = 2 ] || fail "the branch left $n traces in the trace cache, expected 2"
# From the start (epoch 0), one more epoch by default: the run's first; two more after epoch 1:
# its second and third; none (--epochs 0): the heading alone. Nothing on stderr: the trace cache
# takes the references back without a note.
"$CORUN" branch "$TMPD/a.h5" 0 >"$TMPD/b0.txt" 2>"$TMPD/b0.err"
[ ! -s "$TMPD/b0.err" ] || fail "branch at 0 said: $(cat "$TMPD/b0.err")"
grep -qx "$TMPD/a.h5: branched after epoch 0 of 3, 1 more epoch" "$TMPD/b0.txt" ||
    fail "branch at 0, heading: $(cat "$TMPD/b0.txt")"
diff <(sed -n 2,5p "$TMPD/run.txt") <(tail -n +3 "$TMPD/b0.txt") || fail "branch at 0: not the run's first epoch alone"
"$CORUN" branch "$TMPD/a.h5" 1 --epochs 2 >"$TMPD/b1.txt" 2>/dev/null
diff <(sed -n '2p;6,$p' "$TMPD/run.txt") <(tail -n +3 "$TMPD/b1.txt") || fail "branch at 1: not the run's epochs 2 and 3"
"$CORUN" branch "$TMPD/a.h5" 2 --epochs 0 >"$TMPD/bz.txt" 2>/dev/null
[ "$(cat "$TMPD/bz.txt")" = "$TMPD/a.h5: branched after epoch 2 of 3, 0 more epochs
  [note] branched from $TMPD/a.h5 after epoch 2" ] ||
    fail "branch --epochs 0: $(cat "$TMPD/bz.txt")"
# A recorded branch gets its row in the (default) catalog, as a run or the workbench's does.
mkdir -p "$TMPD/bc"
XDG_DATA_HOME="$TMPD/bc" "$CORUN" branch "$TMPD/a.h5" 1 --epochs 2 --out "$TMPD/br.h5" >/dev/null 2>"$TMPD/err" ||
    fail "branch --out: $(cat "$TMPD/err")"
"$CORUN" show "$TMPD/br.h5" | grep -q 'event  epoch 1  note        branched from' || fail "branch note"
grep -qx "corun: recorded 3 epochs in $TMPD/br.h5 (catalog run 1)" "$TMPD/err" ||
    fail "branch --out said: $(cat "$TMPD/err")"
XDG_DATA_HOME="$TMPD/bc" "$CORUN" runs query "SELECT epochs, run_path FROM runs" | tail -1 |
    grep -qx "3"$'\t'"$TMPD/br.h5" || fail "branch --out: the catalog holds $(XDG_DATA_HOME="$TMPD/bc" "$CORUN" runs query "SELECT * FROM runs")"
# --catalog names the catalog, as for run (a branch's row went to the default one, away from
# its run's); --epochs 0 --out keeps the first EPOCH epochs, checked; a catalog that cannot be
# made is said before anything is simulated, as run says it.
"$CORUN" branch "$TMPD/a.h5" 2 --epochs 0 --out "$TMPD/bk.h5" --catalog "$TMPD/bk.db" \
    >/dev/null 2>"$TMPD/err" || fail "branch --catalog: $(cat "$TMPD/err")"
grep -qx "corun: recorded 2 epochs in $TMPD/bk.h5 (catalog run 1)" "$TMPD/err" &&
    [ "$("$CORUN" runs --catalog "$TMPD/bk.db" query "SELECT epochs, run_path FROM runs" | tail -1)" = "2"$'\t'"$TMPD/bk.h5" ] ||
    fail "branch --catalog: $(cat "$TMPD/err")"
# A branch of a branch carries the older "branched from" notes: its first epochs came from the
# first run too. At the parent's branch point (br.h5 branched a.h5 at 1) and before it (bk.h5
# branched a.h5 at 2), the notes in order at the new branch point; at 0 it holds none of them.
for x in "br.h5 1 1" "bk.h5 1 2"; do
    read -r f at was <<<"$x"
    "$CORUN" branch "$TMPD/$f" "$at" --epochs 0 --out "$TMPD/bb-$f" --catalog "$TMPD/bk.db" \
        >/dev/null 2>"$TMPD/err" || fail "branch of $f: $(cat "$TMPD/err")"
    [ "$("$CORUN" show "$TMPD/bb-$f" | grep '^event')" = \
        "event  epoch $at  note        branched from $TMPD/a.h5 after epoch $was
event  epoch $at  note        branched from $TMPD/$f after epoch $at" ] ||
        fail "branch of $f at $at, its log: $("$CORUN" show "$TMPD/bb-$f" | grep '^event')"
done
"$CORUN" branch "$TMPD/br.h5" 0 --epochs 0 --out "$TMPD/bb0.h5" --catalog "$TMPD/bk.db" \
    >/dev/null 2>&1 || fail "branch of br.h5 at 0"
[ "$("$CORUN" show "$TMPD/bb0.h5" | grep '^event')" = \
    "event  epoch 0  note        branched from $TMPD/br.h5 after epoch 0" ] ||
    fail "branch of br.h5 at 0, its log: $("$CORUN" show "$TMPD/bb0.h5" | grep '^event')"
expect_bad "branch --catalog in no directory" \
    "^corun: cannot create catalog $TMPD/none/c.db: .*; the branch was not started$" \
    "$CORUN" branch "$TMPD/a.h5" 2 --out "$TMPD/bn.h5" --catalog "$TMPD/none/c.db"
[ ! -e "$TMPD/bn.h5" ] || fail "branch --catalog in no directory left its run file"
expect_bad "branch --catalog in no directory, without --out" \
    "^corun: cannot create catalog $TMPD/none/c.db: .*; the branch was not started$" \
    "$CORUN" branch "$TMPD/a.h5" 2 --catalog "$TMPD/none/c.db"
# An --out that cannot be made is refused before the recorded epochs are simulated again.
# A dangling link is named as one (it "already exists", which nothing did), and left as it is.
ln -s "$TMPD/nowhere.h5" "$TMPD/dangling.h5"
for bad in "$TMPD/br.h5|already exists; a run file is never overwritten" \
    "$TMPD/dangling.h5|is a symbolic link, not followed; a run file is never written through a link or over one" \
    "$TMPD/none/b.h5|cannot create: its directory does not exist"; do
    "$CORUN" branch "$TMPD/a.h5" 3 --out "${bad%%|*}" >"$TMPD/out" 2>"$TMPD/err" && fail "branch --out ${bad%%|*}"
    [ ! -s "$TMPD/out" ] && grep -qxF "corun: ${bad%%|*}: ${bad#*|} (checked before branching)" "$TMPD/err" ||
        fail "branch --out ${bad%%|*}: $(cat "$TMPD/out" "$TMPD/err")"
done
[ -L "$TMPD/dangling.h5" ] && [ ! -e "$TMPD/nowhere.h5" ] || fail "branch --out a dangling link"
expect_bad "branch past the end" \
    'cannot branch after epoch 9: the run holds 3 epochs (expected 0, its start, to 3)$' \
    "$CORUN" branch "$TMPD/a.h5" 9
# A run of no epochs held "epochs 0 to 0": it holds none, and branches at its start only.
"$CORUN" branch "$TMPD/a.h5" 0 --epochs 0 --out "$TMPD/empty-run.h5" --catalog "$TMPD/bk.db" \
    >/dev/null 2>&1 || fail "branch --epochs 0 at 0"
expect_bad "branch past the end of a run of none" \
    'cannot branch after epoch 1: the run holds no epochs (expected 0, its start)$' \
    "$CORUN" branch "$TMPD/empty-run.h5" 1

# --set changes are recorded as parameter events and re-applied by a branch.
"$CORUN" run "$small" --set epochs=3 --set gpu.sms=8 --out "$TMPD/set.h5" --catalog "$cat" \
    >"$TMPD/set.txt" 2>/dev/null
grep -q '^small pair (gpu hbm80): 3 epochs' "$TMPD/set.txt" || fail "--set epochs"
grep -q '^    1  stream          4.0 ' "$TMPD/set.txt" || fail "--set gpu.sms: $(cat "$TMPD/set.txt")"
"$CORUN" show "$TMPD/set.h5" >"$TMPD/set.show"
for p in epochs=3 gpu.sms=8; do # each of them, the first too
    grep -q "event  epoch 0  parameter   set $p" "$TMPD/set.show" || fail "no set event for $p"
done
diff <(grep '^    3 ' "$TMPD/set.txt") <("$CORUN" branch "$TMPD/set.h5" 2 2>/dev/null | grep '^    3 ') \
    || fail "a branch of a --set run differs"
set +e
"$CORUN" run "$small" --set gpu.dram.timing.fawx=3 --set kernels=1 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "bad --set: exit $rc"
grep -qxF -- 'corun: run: --set: gpu.dram.timing.fawx: unknown DRAM timing setting (did you mean gpu.dram.timing.faw?)' "$TMPD/err" \
    || fail "bad --set message: $(cat "$TMPD/err")"
grep -qF -- 'corun: run: --set: kernels: cannot be changed with --set' "$TMPD/err" || fail "--set kernels"

# The catalog.
[ "$("$CORUN" runs --catalog "$cat" list | grep -c 'stream+compute')" -eq 4 ] || fail "runs list"
# A scenario given by a relative path is recorded by its absolute one, in the file and the
# catalog (the row's file was absolute, its scenario only right from where it was run).
mkdir "$TMPD/here"
cp "$small" "$TMPD/here/mine.cfg"
(cd "$TMPD/here" && "$CORUN" run mine.cfg --epochs 1 --out rel.h5 --catalog "$TMPD/rel.db") \
    >/dev/null 2>&1 || fail "run a scenario by a relative path"
"$CORUN" runs --catalog "$TMPD/rel.db" show 1 | grep -qF "($TMPD/here/mine.cfg)" &&
    "$CORUN" runs --catalog "$TMPD/rel.db" query "SELECT scenario_path FROM runs" | grep -qx "$TMPD/here/mine.cfg" ||
    fail "a relative scenario path: $("$CORUN" runs --catalog "$TMPD/rel.db" show 1)"
# A catalog named with --catalog is read, not made: a mistyped path is refused, not left
# behind as an empty catalog, and so is an empty file (0 bytes), which SQLite would have made
# one (runs list said "no runs yet" and left a catalog of 57 KB) and which no catalog is.
expect_bad "runs --catalog, no such file" \
    "corun: runs: --catalog $TMPD/typo.db: no such file (expected a catalog" \
    "$CORUN" runs --catalog "$TMPD/typo.db" list
[ ! -e "$TMPD/typo.db" ] || fail "runs list made the catalog it was given"
: >"$TMPD/empty.db"
empty="corun: runs: --catalog $TMPD/empty.db: empty: not a corun catalog (expected a catalog"
expect_bad "runs list, an empty file" "$empty" "$CORUN" runs --catalog "$TMPD/empty.db" list
expect_bad "runs show, an empty file" "$empty" "$CORUN" runs --catalog "$TMPD/empty.db" show 1
expect_bad "runs query, an empty file" "$empty" \
    "$CORUN" runs --catalog "$TMPD/empty.db" query "SELECT 1"
[ ! -s "$TMPD/empty.db" ] || fail "runs made the empty file a catalog"
expect_bad "kernels show, an empty file" \
    "corun: kernels show: --catalog $TMPD/empty.db: empty: not a corun catalog" \
    "$CORUN" kernels show stream --catalog "$TMPD/empty.db"
[ ! -s "$TMPD/empty.db" ] || fail "kernels show made the empty file a catalog"
# A catalog with no runs in it (the default one, made by the first command that opens it).
XDG_DATA_HOME=$TMPD/xdg "$CORUN" runs list | grep -q "^(no runs in $TMPD/xdg/corun/catalog.db yet" ||
    fail "runs list on an empty catalog: $(XDG_DATA_HOME=$TMPD/xdg "$CORUN" runs list)"
"$CORUN" runs --catalog "$TMPD/xdg/corun/catalog.db" list | grep -q "^(no runs in $TMPD/xdg/corun/catalog.db yet" ||
    fail "runs list --catalog on an empty catalog"
"$CORUN" runs --catalog "$cat" list | grep -q '^(no runs' && fail "runs list: the empty note beside runs"
"$CORUN" runs --catalog "$cat" show 3 | grep -q 'seed       8' || fail "runs show"
"$CORUN" runs --catalog "$cat" show 3 | grep -q 'NP error' && fail "runs show: an NP error without a predictor"
[ "$("$CORUN" runs --catalog "$cat" show 03)" = "$("$CORUN" runs --catalog "$cat" show 3)" ] ||
    fail "runs show 03 is not run 3"
# The largest run ID is one to look up, the next is no ID.
expect_bad "runs show 4294967295" "has no run 4294967295" "$CORUN" runs --catalog "$cat" show 4294967295
expect_bad "runs show 4294967296" "'4294967296' is no run ID" "$CORUN" runs --catalog "$cat" show 4294967296
[ "$("$CORUN" runs --catalog "$cat" query 'SELECT count(*) AS n FROM runs' | tail -1)" = 4 ] || fail "runs query"
set +e
"$CORUN" runs --catalog "$cat" query 'DELETE FROM runs' 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'refused a query that would change the catalog' "$TMPD/err" || fail "write query: $rc $(cat "$TMPD/err")"

"$CORUN" export "$TMPD/a.h5" --csv "$TMPD/csv" 2>"$TMPD/err"
grep -qx "corun: wrote kernels.csv, system.csv, events.csv and partition.csv in $TMPD/csv" "$TMPD/err" ||
    fail "export's message: $(cat "$TMPD/err")"
[ "$(wc -l <"$TMPD/csv/kernels.csv")" -eq 7 ] || fail "kernels.csv: 3 epochs x 2 kernels + header"
# --csv first works too, and writes the same.
"$CORUN" export --csv "$TMPD/csv2" "$TMPD/a.h5" 2>/dev/null || fail "export --csv DIR RUN.h5"
diff -r "$TMPD/csv" "$TMPD/csv2" >/dev/null || fail "export --csv DIR RUN.h5 wrote other files"
# A file of the export's names in DIR (a user's own kernels.csv) is refused, not replaced
# unsaid; --force replaces it.
mkdir "$TMPD/mine"
echo precious >"$TMPD/mine/kernels.csv"
expect_bad "export over a file of the user's" \
    "^corun: $TMPD/mine/kernels.csv: exists; give --force to replace it, or export to another directory$" \
    "$CORUN" export "$TMPD/a.h5" --csv "$TMPD/mine"
[ "$(cat "$TMPD/mine/kernels.csv")" = precious ] && [ "$(ls -A "$TMPD/mine")" = kernels.csv ] ||
    fail "a refused export changed the directory: $(ls -A "$TMPD/mine")"
"$CORUN" export "$TMPD/a.h5" --csv "$TMPD/mine" --force 2>/dev/null || fail "export --force"
diff -r "$TMPD/csv" "$TMPD/mine" >/dev/null || fail "export --force wrote other files"
# --csv naming a file: a usage mistake (exit 2) that says so, and the file is left alone.
echo keep >"$TMPD/afile"
set +e
"$CORUN" export "$TMPD/a.h5" --csv "$TMPD/afile" 2>"$TMPD/err"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "^corun: export: --csv $TMPD/afile: not a directory" "$TMPD/err" &&
    [ "$(cat "$TMPD/afile")" = keep ] || fail "export --csv FILE: exit $rc, $(cat "$TMPD/err")"
# A directory whose parent is not one (a file, or missing: only DIR is made, as the help
# says), or no name: a usage mistake (exit 2; it was exit 1, a failure while running), the
# reason, and no success message.
for sub in "$TMPD/afile/sub" "$TMPD/nodir/sub" "$TMPD/nodir/sub/"; do
    set +e
    "$CORUN" export "$TMPD/a.h5" --csv "$sub" 2>"$TMPD/err"; rc=$?
    set -e
    parent=${sub%/}
    parent=${parent%/sub}
    [ "$rc" = 2 ] && [ "$(cat "$TMPD/err")" = "corun: export: --csv $sub: $parent is not a directory (DIR is made when missing, not its parents)" ] ||
        fail "export --csv $sub: exit $rc, $(cat "$TMPD/err")"
done
[ ! -e "$TMPD/nodir" ] || fail "export --csv nodir/sub made nodir"
expect_bad "export --csv ''" "^corun: --csv: expected a name, got an empty one$" \
    "$CORUN" export "$TMPD/a.h5" --csv ''
for c in "run $small" "branch $TMPD/a.h5 1" "plot $TMPD/a.h5"; do # it said "corun: : cannot create"
    # shellcheck disable=SC2086 # the command's words
    expect_bad "$c --out ''" "^corun: --out: expected a name, got an empty one$" "$CORUN" $c --out ""
done

# Bad run files.
bad() { # FILE MESSAGE
    set +e
    "$CORUN" show "$1" >/dev/null 2>"$TMPD/err"
    local rc=$?
    set -e
    [ $rc -eq 2 ] || fail "show $1: exit $rc"
    grep -qF -- "$2" "$TMPD/err" || fail "show $1: want '$2', got '$(cat "$TMPD/err")'"
}
bad "$TMPD/none.h5" "cannot open: No such file or directory"
: >"$TMPD/empty.h5"
bad "$TMPD/empty.h5" "empty file (0 bytes), not a run file"
head -c 4096 /dev/urandom >"$TMPD/random.h5"
bad "$TMPD/random.h5" "not an HDF5 file"
head -c "$(($(stat -c %s "$TMPD/a.h5") / 2))" "$TMPD/a.h5" >"$TMPD/half.h5"
bad "$TMPD/half.h5" "$TMPD/half.h5:"
set +e
"$CORUN" run "$small" --epochs 1 --out "$TMPD/a.h5" --catalog "$cat" >/dev/null 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'already exists; a run file is never overwritten' "$TMPD/err" || fail "overwrite: $rc"

# A branch stopped by SIGTERM before its branch point died without a word, or said only
# "branching abandoned": it says what stopped it and that nothing was branched or recorded, and
# dies of the signal. Stopped while it waits for its catalog (held by another process for 1 s):
# the signal comes once the branch has the catalog open.
locker=$top_builddir/tests/catalog_locker
"$locker" hold "$TMPD/held.db" 1 "$TMPD/held.ready" &
holder=$!
while [ ! -e "$TMPD/held.ready" ]; do
    kill -0 $holder 2>/dev/null || fail "the catalog's holder exited before taking its lock"
    sleep 0.02
done
"$CORUN" branch "$TMPD/a.h5" 3 --out "$TMPD/stopped.h5" --catalog "$TMPD/held.db" \
    >/dev/null 2>"$TMPD/err" &
pid=$!
until ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "held.db$"; do
    kill -0 $pid 2>/dev/null || fail "the branch ended before it opened its catalog: $(cat "$TMPD/err")"
    sleep 0.02
done
term_and_wait $pid
wait $holder || fail "the catalog's holder failed"
[ $rc = 143 ] && [ ! -e "$TMPD/stopped.h5" ] &&
    grep -qxF "corun: $TMPD/a.h5: stopped by SIGTERM before the branch, while its first 3 epochs were simulated again; nothing branched or recorded" "$TMPD/err" ||
    fail "a branch stopped before its branch point: exit $rc: $(cat "$TMPD/err")"

# Crash safety: kill a recording run at random moments; the file holds every epoch reported.
# (runfile_crash.sh also checks every file a kill could leave, writes cut at page boundaries
# included, and kills its recorder 20 times: ten kills of `corun run` here, where there were
# twenty, pay for the stop-signal, full-disk and pipe checks of hardening.sh.)
for i in $(seq 1 10); do
    f="$TMPD/kill$i.h5"
    # Emptied here: a run killed before its own redirection must not be read as the last one.
    : >"$TMPD/kill.out"
    "$CORUN" run "$small" --epochs 200 --out "$f" --catalog "$cat" >"$TMPD/kill.out" 2>/dev/null &
    pid=$!
    sleep "0.$((RANDOM % 9 + 1))$((RANDOM % 10))"
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    reported=$(grep -c 'system: STP' "$TMPD/kill.out" || true)
    if [ ! -e "$f" ]; then
        [ "$reported" -eq 0 ] || fail "kill $i: no file after $reported epochs"
        continue
    fi
    "$CORUN" show "$f" >"$TMPD/kshow.txt" 2>"$TMPD/err" || fail "kill $i: $(cat "$TMPD/err")"
    held=$(grep -c 'system: STP' "$TMPD/kshow.txt" || true)
    [ "$held" -ge "$reported" ] || fail "kill $i: reported $reported epochs, the file holds $held"
    echo "kill $i: reported $reported, file holds $held"
done
# Only one end a terminal: `replay` refuses before curses starts.
needs_both_terminals "the workbench needs a terminal; 'corun show $TMPD/a.h5' prints the run" replay "$TMPD/a.h5"
echo "record/replay: show, determinism, branch, catalog, bad files and 10 kills ok"
