#!/usr/bin/env bash
# corun sweep: two shards in parallel on one catalog store every item exactly once; a sweep
# stopped midway (SIGTERM, which it names) and restarted skips what it finished, and one whose
# worker is killed fails only that item; a sweep with other epochs runs again (a result is
# keyed by its configuration too); shards' own catalogs merge; bad combinations are refused; a
# result is the mix's `corun run`.
. "$(dirname "$0")/../lib.sh"
suite="$top_srcdir/tests/data/good/tiny-suite.cfg"
cat="$TMPD/catalog.db"
combos=none:static,hsm:static
rows() { "$CORUN" runs --catalog "$cat" query "SELECT count(*) FROM sweep_results WHERE suite = 'tiny'" | tail -1; }

"$CORUN" sweep "$suite" --combos $combos --shard 1/2 --catalog "$cat" >"$TMPD/s1" 2>&1 &
p1=$!
"$CORUN" sweep "$suite" --combos $combos --shard 2/2 --catalog "$cat" >"$TMPD/s2" 2>&1 &
p2=$!
wait $p1 || fail "shard 1/2: $(cat "$TMPD/s1")"
wait $p2 || fail "shard 2/2: $(cat "$TMPD/s2")"
grep -q 'shard 1/2: 4 items' "$TMPD/s1" || fail "shard 1/2 items: $(cat "$TMPD/s1")"
[ "$(rows)" = 8 ] || fail "expected 8 rows after both shards, got $(rows)"
dups=$("$CORUN" runs --catalog "$cat" query \
    "SELECT count(*) FROM (SELECT mix, predictor FROM sweep_results GROUP BY mix, predictor, allocator, seed HAVING count(*) > 1)" | tail -1)
[ "$dups" = 0 ] || fail "$dups items stored twice"
# The mixes' private-mode references are kept in the catalog for the next sweep or run: one
# trace for each of the suite's four kernels at least.
traces=$("$CORUN" runs --catalog "$cat" query "SELECT count(DISTINCT kernel) FROM solo_traces" | tail -1)
[ "${traces:-0}" -ge 4 ] || fail "the sweep kept traces of $traces kernels in the catalog"
# A result is the mix's run as `corun run` gives it: the suite's one epoch of its length, the
# sweep's seed, the pair's predictor and allocator.
cat >"$TMPD/mix.cfg" <<'EOF'
name = "tiny stream+compute";
gpu = "hbm80";
seed = 1;
epochs = 1;
epoch_cycles = 2000;
predictor = "none";
allocator = "static";
kernels = ( { name = "stream"; }, { name = "compute"; } );
EOF
"$CORUN" run "$TMPD/mix.cfg" --json >"$TMPD/mix.json" || fail "run of the mix"
swept=$("$CORUN" runs --catalog "$cat" query \
    "SELECT mean_stp FROM sweep_results WHERE mix = 'stream+compute' AND predictor = 'none'" | tail -1)
python3 - "$TMPD/mix.json" "$swept" <<'PY' || fail "the sweep's STP is not the run's"
import json, sys
epochs = json.load(open(sys.argv[1]))["epochs"]
run = sum(e["stp"] for e in epochs) / len(epochs)
swept = float(sys.argv[2])
if len(epochs) != 1 or abs(run - swept) > 1e-4 * run:
    sys.exit(f"sweep STP {swept}, run {run} over {len(epochs)} epoch(s)")
PY
"$CORUN" sweep "$suite" --combos $combos -j 1 --catalog "$cat" >"$TMPD/again" 2>"$TMPD/again.err"
grep -q '8 items, 8 already in the catalog, 0 run now' "$TMPD/again" ||
    fail "a finished sweep ran again: $(cat "$TMPD/again")"
[ ! -s "$TMPD/again.err" ] || fail "a sweep that went well wrote to stderr: $(cat "$TMPD/again.err")"
# The summary table has one row per combination, with the suite's 4 mixes each.
grep -q '^  none:static  *4  *[0-9.]' "$TMPD/again" || fail "results table: $(cat "$TMPD/again")"
"$CORUN" runs --catalog "$cat" query "SELECT mix FROM sweep_results" | grep -q '^stream+random@20:60$' \
    || fail "mix key with split"
# Other epochs are another configuration: the results of one epoch are not taken for two
# (they were before schema 2), and the table shows only this configuration's.
"$CORUN" sweep "$suite" --epochs 2 --catalog "$cat" >"$TMPD/e2"
grep -q '4 items, 0 already in the catalog, 4 run now' "$TMPD/e2" ||
    fail "results of 1 epoch taken for 2: $(cat "$TMPD/e2")"
grep -q '^  none:static  *4  *[0-9.]' "$TMPD/e2" && ! grep -q 'hsm:static' "$TMPD/e2" ||
    fail "table of the 2-epoch sweep: $(cat "$TMPD/e2")"
[ "$("$CORUN" runs --catalog "$cat" query "SELECT count(DISTINCT config) FROM sweep_results WHERE config LIKE 'hbm80, _ x 2000 cycles; corun build %'" | tail -1)" = 2 ] ||
    fail "configurations: $("$CORUN" runs --catalog "$cat" query "SELECT DISTINCT config FROM sweep_results")"
# --set is another configuration too: the GPU setting is named in it, the items run again and
# give other results; a bad setting is refused before anything runs.
"$CORUN" sweep "$suite" --set gpu.order_free=true --catalog "$cat" >"$TMPD/of" 2>&1 ||
    fail "sweep --set: $(cat "$TMPD/of")"
grep -q '4 items, 0 already in the catalog, 4 run now' "$TMPD/of" ||
    fail "results without --set taken for it: $(cat "$TMPD/of")"
cfg="SELECT count(*) FROM sweep_results WHERE config LIKE 'hbm80, set gpu.order_free=true, 1 x 2000 cycles; %'"
[ "$("$CORUN" runs --catalog "$cat" query "$cfg" | tail -1)" = 4 ] ||
    fail "--set's configuration: $("$CORUN" runs --catalog "$cat" query "SELECT DISTINCT config FROM sweep_results")"
differ="SELECT count(*) FROM sweep_results a JOIN sweep_results b ON a.mix = b.mix AND
        a.predictor = b.predictor AND a.allocator = b.allocator AND a.seed = b.seed
        WHERE a.config LIKE 'hbm80, 1 x %' AND b.config LIKE 'hbm80, set %' AND a.mean_stp <> b.mean_stp"
[ "$("$CORUN" runs --catalog "$cat" query "$differ" | tail -1)" -ge 1 ] ||
    fail "--set gpu.order_free=true changed no mix's STP"
expect_bad "sweep --set gpu.sms" 'the SM count is the preset.s here' \
    "$CORUN" sweep "$suite" --set gpu.sms=40 --catalog "$cat"
expect_bad "sweep --set gpu.nosuch" 'gpu.nosuch: unknown gpu setting' "$CORUN" sweep "$suite" \
    --set gpu.nosuch=1 --catalog "$cat"

# Shards on machines that share no catalog: each has its own, `sweep merge` joins them, and the
# sweep then runs nothing. Merging again adds nothing; a catalog whose result differs under the
# same key, the catalog itself and a file that is no database are refused.
for k in 1 2; do
    "$CORUN" sweep "$suite" --combos $combos --shard $k/2 --catalog "$TMPD/m$k.db" >/dev/null ||
        fail "shard $k/2 into a catalog of its own"
done
"$CORUN" sweep merge "$TMPD/m2.db" --catalog "$TMPD/m1.db" >"$TMPD/merge" ||
    fail "sweep merge: $(cat "$TMPD/merge")"
grep -q "m2.db: 4 sweep results added, 0 already in $TMPD/m1.db" "$TMPD/merge" ||
    fail "merge counts: $(cat "$TMPD/merge")"
"$CORUN" sweep merge "$TMPD/m2.db" --catalog "$TMPD/m1.db" >"$TMPD/merge"
grep -q "m2.db: 0 sweep results added, 4 already in" "$TMPD/merge" ||
    fail "second merge: $(cat "$TMPD/merge")"
"$CORUN" sweep "$suite" --combos $combos --catalog "$TMPD/m1.db" >"$TMPD/merged"
grep -q '8 items, 8 already in the catalog, 0 run now' "$TMPD/merged" ||
    fail "sweep after the merge: $(cat "$TMPD/merged")"
grep -q '^  hsm:static  *4  *[0-9.]' "$TMPD/merged" || fail "merged table: $(cat "$TMPD/merged")"
python3 - "$TMPD/m2.db" <<'PY' || fail "could not alter m2.db"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE sweep_results SET mean_stp = mean_stp + 1")
db.commit()
PY
set +e
"$CORUN" sweep merge "$TMPD/m2.db" --catalog "$TMPD/m1.db" 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'm2.db holds 4 sweep result(s) that differ' "$TMPD/err" ||
    fail "conflicting catalog: $rc $(cat "$TMPD/err")"
set +e
"$CORUN" sweep merge "$TMPD/m1.db" --catalog "$TMPD/m1.db" 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'm1.db is the catalog merged into' "$TMPD/err" || fail "self merge: $rc"
echo "not a database" >"$TMPD/junk.db"
set +e
"$CORUN" sweep merge "$TMPD/junk.db" --catalog "$TMPD/m1.db" 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'junk.db is not a corun catalog' "$TMPD/err" ||
    fail "junk: $rc $(cat "$TMPD/err")"
# A missing, empty or directory "catalog" is said to be that, not "cannot be read" or SQLite's
# "unable to open database"; nothing is made in its place.
: >"$TMPD/empty.db"
for f in "none.db:No such file or directory" "empty.db:an empty file (0 bytes)" ".:a directory"; do
    expect_bad "merge ${f%%:*}" "^corun: sweep merge: cannot merge $TMPD/${f%%:*} into $TMPD/m1.db: ${f#*:}; expected a catalog" \
        "$CORUN" sweep merge "$TMPD/${f%%:*}" --catalog "$TMPD/m1.db"
done
[ ! -e "$TMPD/none.db" ] && [ ! -s "$TMPD/empty.db" ] || fail "merge made none.db or wrote empty.db"
# merge's own usage mistakes, each named; --catalog=PATH is --catalog PATH.
expect_bad "merge --catalog last" '^corun: sweep merge: --catalog needs a value$' \
    "$CORUN" sweep merge "$TMPD/m2.db" --catalog
for opt in -x --bogus; do
    expect_bad "merge $opt" "^corun: sweep merge: unknown option '$opt' (it takes catalogs and --catalog PATH)\$" \
        "$CORUN" sweep merge "$opt" "$TMPD/m2.db" --catalog "$TMPD/m1.db"
done
expect_bad "merge of nothing" "^corun: sweep merge: expected at least one catalog to merge" \
    "$CORUN" sweep merge --catalog "$TMPD/m1.db"
expect_bad "merge --catalog=PATH" 'm1.db is the catalog merged into' \
    "$CORUN" sweep merge "$TMPD/m1.db" --catalog="$TMPD/m1.db"
# A catalog named twice, by one name or by two (./ and a link), is refused before anything is
# merged (it was merged twice, the second time adding nothing); the new catalog is not made.
ln -s m2.db "$TMPD/link.db"
for second in "$TMPD/m2.db" "$TMPD/./m2.db" "$TMPD/link.db"; do
    expect_bad "merge of m2.db and $second" \
        "^corun: sweep merge: $TMPD/m2.db and $second are the same catalog: expected each catalog once\$" \
        "$CORUN" sweep merge "$TMPD/m2.db" "$second" --catalog "$TMPD/twice.db"
done
[ ! -e "$TMPD/twice.db" ] || fail "a refused merge made twice.db"
# `--` ends merge's options: a catalog named -x.db merges (it was an unknown option).
cp "$TMPD/m2.db" "$TMPD/-x.db"
(cd "$TMPD" && "$CORUN" sweep merge --catalog dash.db -- -x.db >merge 2>err) ||
    fail "merge -- -x.db: $(cat "$TMPD/err")"
grep -q '^-x.db: 4 sweep results added, 0 already in dash.db' "$TMPD/merge" ||
    fail "merge -- -x.db: $(cat "$TMPD/merge")"

# Stop a longer sweep midway, then finish it.
"$CORUN" sweep "$suite" --combos $combos --epochs 40 --seed 2 --catalog "$cat" >"$TMPD/k" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
    n=$("$CORUN" runs --catalog "$cat" query "SELECT count(*) FROM sweep_results WHERE seed = 2" | tail -1)
    [ "${n:-0}" -ge 2 ] && break
    sleep 0.1
done
# SIGTERM: the sweep dies of it as of a SIGKILL (its items are stored as they finish), but it
# says what is kept (it ended without a word).
kill -TERM $pid 2>/dev/null || true
rc=0
wait $pid 2>/dev/null || rc=$?
[ $rc = 143 ] && grep -qxF "corun: sweep: stopped by SIGTERM; the items finished are kept in the catalog $cat: the same command goes on from them" "$TMPD/k" ||
    fail "a sweep stopped by SIGTERM: exit $rc: $(cat "$TMPD/k")"
before=$("$CORUN" runs --catalog "$cat" query "SELECT count(*) FROM sweep_results WHERE seed = 2" | tail -1)
[ "$before" -ge 1 ] && [ "$before" -lt 8 ] || echo "note: the kill came at $before of 8 items"
"$CORUN" sweep "$suite" --combos $combos --epochs 40 --seed 2 --catalog "$cat" >"$TMPD/r"
grep -q "8 items, $before already in the catalog, $((8 - before)) run now, 0 failed" "$TMPD/r" \
    || fail "restart: $(cat "$TMPD/r")"

# A worker killed part-way fails only its item, named with how its worker ended, exit status
# 1; the rest are stored, and the rerun makes that item up.
run_killing_first_worker "$TMPD/w" "$TMPD/w.err" \
    "$CORUN" sweep "$suite" --combos $combos --epochs 100 --seed 3 -j 2 --catalog "$cat"
rc=$killed_rc
[ $rc -eq 1 ] || fail "a sweep with a killed worker: exit $rc, expected 1: $(cat "$TMPD/w.err")"
grep -q "8 items, 0 already in the catalog, 7 run now, 1 failed" "$TMPD/w" ||
    fail "a sweep with a killed worker: $(cat "$TMPD/w")"
grep -Eq '^corun: sweep: tiny \([^ ]+ with [a-z]+:static\): its worker process was killed by signal 9' \
    "$TMPD/w.err" || fail "the killed worker's item is not named: $(cat "$TMPD/w.err")"
"$CORUN" sweep "$suite" --combos $combos --epochs 100 --seed 3 -j 2 --catalog "$cat" >"$TMPD/w2" ||
    fail "after a killed worker: exit $?"
grep -q "8 items, 7 already in the catalog, 1 run now, 0 failed" "$TMPD/w2" ||
    fail "after a killed worker: $(cat "$TMPD/w2")"

set +e
"$CORUN" sweep "$suite" --combos hsn:static --catalog "$cat" 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'unknown predictor "hsn"; known: oracle, hsm, dase, asm, themis, none (did you mean hsm?)$' "$TMPD/err" || fail "bad combo: $rc $(cat "$TMPD/err")"
set +e
"$CORUN" sweep "$suite" --shard 3/2 --catalog "$cat" 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'expected K/N with 1 <= K <= N' "$TMPD/err" || fail "bad shard: $rc"
# A shard past the suite's last item (8 here) runs nothing, and says so.
"$CORUN" sweep "$suite" --combos $combos --shard 9/9 --catalog "$cat" >/dev/null 2>"$TMPD/err" ||
    fail "empty shard: exit $?"
grep -q '^corun: sweep: shard 9/9 has no items: the suite has fewer than 9 items' "$TMPD/err" ||
    fail "empty shard: $(cat "$TMPD/err")"
# A shipped suite's name with a typo and .cfg: looked for as it is, and the likely one named.
expect_bad "hsm-pair.cfg" '(as hsm-pair.cfg); did you mean hsm-pairs.cfg?$' \
    "$CORUN" sweep hsm-pair.cfg --catalog "$cat"
# An empty suite: every missing setting, as `corun suite check` lists them (sweep said the first).
: >"$TMPD/empty.cfg"
expect_bad "an empty suite" "empty.cfg: name: required setting is missing" \
    "$CORUN" sweep "$TMPD/empty.cfg" --catalog "$cat"
[ "$(grep -c 'required setting is missing' "$TMPD/err")" = 4 ] || fail "an empty suite: $(cat "$TMPD/err")"
echo "sweep: shards, resume after a kill and bad input ok (killed at $before of 8)"
