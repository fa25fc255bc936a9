#!/usr/bin/env bash
# corun reproduce prophet --scaleout --quick: a row per configuration cell (LS application,
# batch application, load) with the instances each predictor and full co-location chose and
# the measured p99 over p99 alone; a row per decider whose counts follow from the cells (in
# the quick form each cell is one GPU in one slot); no co-location places nothing and needs
# the batch pool's own GPUs; --list names the experiment; two experiments at once are refused.
# --resume FILE: a run from a journal cut part-way (a torn tail, as a kill leaves it) and
# one from the whole journal print the same tables as the run that wrote it; a journal of
# another experiment is refused. --shard K/N: the cells the cut journal lacks, filled in by
# shards 2/4, 3/4 and 4/4 in turn, each simulating only its own cell and printing the rows
# of the cells it has and what it did instead of the summary, until the last, which has
# every cell and prints the first run's tables; --shard needs --resume and a shard within
# 1..N. -j 2 from the cut journal gives the same tables and completes the journal.
# `reproduce merge` joins the cut journal and the completed one into a third, from which the
# tables come again; `merge --adopt` takes another build's journal after the cells both hold
# agree; a journal's LS curves (FILE.curves) go with it. The LS curves kept in FILE.curves
# are read instead of measured (below). The full form without --resume warns that a stop
# loses everything. The quick runs here take 2 queries per run (a third of the quick form's
# cost; nothing checked depends on the count but the journal's identity).
. "$(dirname "$0")/../lib.sh"

"$CORUN" reproduce --list | grep -q '^prophet .*--scaleout' || fail "--list lacks --scaleout"
# The full form says, without --resume, that a stop would lose it all and where the kept cells
# are; with --resume it does not. It says so before its heading (on stdout, line-buffered here),
# so each run is stopped as soon as the heading is out, in a process group of its own so that
# any worker goes with it (as `timeout` would); rc is 143 when it was still running.
full_form() {
    # Emptied here, not only by the child's redirection: the loop below must not find the
    # previous run's heading before the new run has truncated the file.
    : >"$TMPD/head"
    : >"$TMPD/err"
    # stdbuf preloads its library ahead of everything, which a corun built with
    # --enable-sanitizers refuses unless ASan is told not to check its place.
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        setsid stdbuf -oL "$CORUN" reproduce prophet --scaleout "$@" >"$TMPD/head" 2>"$TMPD/err" &
    local pid=$! deadline=$((SECONDS + 120))
    until grep -q '^prophet --scaleout:' "$TMPD/head" || [ $SECONDS -ge $deadline ] ||
        ! kill -0 $pid 2>/dev/null; do
        sleep 0.1
    done
    kill -- -$pid 2>/dev/null || kill $pid 2>/dev/null || true
    rc=0
    wait $pid || rc=$?
    grep -q '^prophet --scaleout:' "$TMPD/head" ||
        fail "the full form $*: no heading (exit $rc): $(cat "$TMPD/err")"
}
full_form
[ "$rc" -eq 143 ] || fail "the full form ended by itself: exit $rc $(cat "$TMPD/err")"
grep -q "^corun: reproduce prophet --scaleout: the full form takes about 28 h .* keeps nothing if it stops: --resume FILE .*docs/journals/README.md" \
    "$TMPD/err" || fail "no word on a stop without --resume: $(cat "$TMPD/err")"
full_form --resume "$TMPD/full.journal"
[ "$rc" -eq 143 ] || fail "the full form with --resume: exit $rc $(cat "$TMPD/err")"
! grep -q "keeps nothing" "$TMPD/err" || fail "the warning with --resume: $(cat "$TMPD/err")"
"$CORUN" reproduce prophet --scaleout --quick --queries 2 --resume "$TMPD/so.journal" >"$TMPD/out" \
    2>"$TMPD/err" || fail "--scaleout --quick: exit $? $(cat "$TMPD/err")"
python3 - "$TMPD/out" <<'PY' || fail "scale-out tables: $(cat "$TMPD/out")"
import math, re, sys
text = open(sys.argv[1]).read()
target = float(re.search(r"QoS: p99 <= ([0-9.]+) x", text).group(1))
pool = int(re.search(r"^(\d+) batch instances to run", text, re.M).group(1))
cells = re.findall(r"^(gmm|pos) +(pf|nn) +(\d+)% +" + r" +".join([r"(\d+) +([0-9.]+)x(\*?)"] * 4)
                   + r"$", text, re.M)
assert len(cells) == 8, cells
deciders = ["prophet", "sequential", "bubble", "full"]
for c in cells:
    for i, d in enumerate(deciders):
        k, x, star = int(c[3 + 3 * i]), float(c[4 + 3 * i]), c[5 + 3 * i]
        assert 0 <= k <= 15
        assert (star == "*") == (x > target + 0.005) or abs(x - target) < 0.01, (c, d)
        if k == 0:
            assert x == 1.0, (c, d)  # alone under the same arrivals is the reference
    assert int(c[3 + 9]) == 15  # full
rows = dict((m[0], m[1:]) for m in re.findall(
    r"^(none|prophet|sequential|bubble|full) +([0-9.]+) +(\d+) +([0-9.]+) +([0-9.]+)% +([0-9.]+)% +"
    r"(\d+) +([0-9.]+)% +([0-9.]+)%$", text, re.M))
assert sorted(rows) == sorted(["none"] + deciders), rows
none = rows["none"]
assert float(none[0]) == 4 + math.ceil(pool / 16) and float(none[2]) == 0 and int(none[5]) == 0
assert float(rows["full"][3]) == 100.0 and float(rows["full"][2]) == 60.0
for i, d in enumerate(deciders):
    coloc = sum(1 for c in cells if int(c[3 + 3 * i]) > 0)
    viol = sum(1 for c in cells if int(c[3 + 3 * i]) > 0 and c[5 + 3 * i] == "*")
    assert int(rows[d][5]) == coloc, (d, rows[d], coloc)
    share = 100.0 * viol / coloc if coloc else 0.0
    assert abs(float(rows[d][6]) - share) < 0.06, (d, rows[d], viol)
    placed = sum(int(c[3 + 3 * i]) for c in cells) / 2  # two slots
    assert abs(float(rows[d][2]) - placed) < 0.06, (d, rows[d], placed)
assert re.search(r"^\d+ configurations simulated", text, re.M)
PY

# The same tables from the journal, cut part-way (in its sixth record: five cells read, the
# other three simulated again by the shards that hold them; cells are journaled in the order
# LS application, load, batch application, and shard K/4 holds the K-th two in that order,
# one (LS, load) pair, so the cut keeps shards 1 and 2 whole, shard 3 lacks one cell and
# shard 4 both) and whole (the cycle count leaves out the measurements a resumed run did not
# need to make again).
tables() { grep -v -e 'M core cycles' -e 'read from' "$1"; }
size=$(stat -c %s "$TMPD/so.journal")
cp "$TMPD/so.journal" "$TMPD/part.journal"
truncate -s $((size * 3 / 4)) "$TMPD/part.journal"
cp "$TMPD/part.journal" "$TMPD/cut.journal"
n=5
for k in 2 3 4; do
    "$CORUN" reproduce prophet --scaleout --quick --queries 2 --shard $k/4 --resume "$TMPD/part.journal" \
        >"$TMPD/part" 2>"$TMPD/err" || fail "shard $k/4 from part of a journal: exit $? $(cat "$TMPD/err")"
    [ $k = 2 ] && { grep -qF "torn record" "$TMPD/err" || fail "the torn tail was not reported: $(cat "$TMPD/err")"; }
    [ $k = 4 ] && break
    sim=$((k - 2))
    grep -qF "shard $k/4: $sim of the 8 cells simulated into $TMPD/part.journal ($n read from it)" \
        "$TMPD/part" || fail "shard $k/4: $(cat "$TMPD/part")"
    ! grep -qE '^(none|full) ' "$TMPD/part" || fail "shard $k/4 printed a summary: $(cat "$TMPD/part")"
    [ "$(grep -cE '^(gmm|pos) +(pf|nn) +[0-9]+%' "$TMPD/part")" = $((n + sim)) ] ||
        fail "shard $k/4: not the rows of its $((n + sim)) cells: $(cat "$TMPD/part")"
    n=$((n + sim))
done
grep -qE '^\(6 of the 8 cells read from' "$TMPD/part" || fail "last shard: $(cat "$TMPD/part")"
diff <(tables "$TMPD/out") <(tables "$TMPD/part") || fail "completed by shards: other tables"

# -j 2: the three cells the cut journal lacks on two worker processes (their curves first,
# then the cells), the same tables, the three cells added to the journal.
cp "$TMPD/cut.journal" "$TMPD/j2.journal"
"$CORUN" reproduce prophet --scaleout --quick --queries 2 -j 2 --resume "$TMPD/j2.journal" >"$TMPD/j2" \
    2>"$TMPD/err" || fail "-j 2 from the cut journal: exit $? $(cat "$TMPD/err")"
grep -qE '^\(5 of the 8 cells read from' "$TMPD/j2" || fail "-j 2: $(cat "$TMPD/j2")"
diff <(tables "$TMPD/out") <(tables "$TMPD/j2") || fail "-j 2: other tables"
"$CORUN" reproduce prophet --scaleout --quick --queries 2 --resume "$TMPD/j2.journal" >"$TMPD/j2" \
    2>"$TMPD/err" || fail "resume from the -j 2 journal: exit $?"
grep -qF "(8 of the 8 cells read from" "$TMPD/j2" || fail "-j 2 journal: $(cat "$TMPD/j2")"

# A worker killed: the failure is named, the other cells are simulated and their rows printed,
# the summary is left out (exit 1), and a rerun with the journal simulates only what was lost.
# From the cut journal the first task is pos's curve at 10 %, which one missing cell needs;
# with every curve read from FILE.curves it is that cell itself.
killed() { # JOURNAL WHAT: the run from the cut journal with its first worker killed
    cp "$TMPD/cut.journal" "$1"
    run_killing_first_worker "$TMPD/k" "$TMPD/err" \
        "$CORUN" reproduce prophet --scaleout --quick --queries 2 -j 2 --resume "$1"
    [ "$killed_rc" = 1 ] || fail "$2 killed: exit $killed_rc $(cat "$TMPD/err")"
    grep -q "^corun: reproduce prophet --scaleout: $2: its worker process was killed by signal 9" \
        "$TMPD/err" || fail "$2 killed: not named: $(cat "$TMPD/err")"
    grep -qxF "1 of 8 cells not simulated (the failures named on stderr), 7 finished; the summary needs every cell: the same command with --resume $1 simulates only the rest" \
        "$TMPD/k" || fail "$2 killed: $(tail -3 "$TMPD/k")"
    ! grep -qE '^(none|full) ' "$TMPD/k" || fail "$2 killed: a summary: $(cat "$TMPD/k")"
    [ "$(grep -E '^(gmm|pos) +(pf|nn) +[0-9]+%' "$TMPD/k" | grep -cvE '^pos +nn +10%')" = 7 ] &&
        [ -z "$(grep -E '^(gmm|pos) +(pf|nn) +[0-9]+%' "$TMPD/k" | grep -vxFf <(tables "$TMPD/out"))" ] ||
        fail "$2 killed: not the 7 other cells' rows: $(cat "$TMPD/k")"
    "$CORUN" reproduce prophet --scaleout --quick --queries 2 --resume "$1" >"$TMPD/k" 2>"$TMPD/err" ||
        fail "$2 killed, the rerun: exit $? $(cat "$TMPD/err")"
    grep -qE '^\(7 of the 8 cells read from' "$TMPD/k" || fail "$2 killed, the rerun: $(cat "$TMPD/k")"
    diff <(tables "$TMPD/out") <(tables "$TMPD/k") || fail "$2 killed, the rerun: other tables"
}
killed "$TMPD/k.journal" "pos alone at 10 % load (the latency curve its cells need)"
cp "$TMPD/so.journal.curves" "$TMPD/kc.journal.curves"
killed "$TMPD/kc.journal" "pos beside nn at 10 % load"

# reproduce merge: the cut journal and the one the shards completed, into a new file, which
# then gives the same tables without simulating; merging again adds nothing; a file that is
# not a journal is refused, naming it.
cp "$TMPD/cut.journal" "$TMPD/cut.before"
"$CORUN" reproduce merge "$TMPD/m.journal" "$TMPD/cut.journal" "$TMPD/part.journal" \
    >"$TMPD/merge" 2>"$TMPD/err" || fail "merge: exit $? $(cat "$TMPD/err")"
grep -qF "cut.journal: 5 records added, 0 already in $TMPD/m.journal (a torn tail of" \
    "$TMPD/merge" || fail "merge, the cut journal: $(cat "$TMPD/merge")"
# A journal merged from is read, not changed (its torn tail was cut off it).
cmp -s "$TMPD/cut.before" "$TMPD/cut.journal" || fail "merge changed the journal it read"
grep -qF "part.journal: 3 records added, 5 already in" "$TMPD/merge" || fail "merge: $(cat "$TMPD/merge")"
# The shards' LS curves (part.journal.curves; the cut journal has none) go with them.
grep -qE "^$TMPD/part.journal.curves: [1-9][0-9]* LS curves? added, 0 already in $TMPD/m.journal.curves\$" \
    "$TMPD/merge" || fail "merge, the curves: $(cat "$TMPD/merge")"
cmp -s "$TMPD/part.journal.curves" "$TMPD/m.journal.curves" || fail "merge: other curves"
"$CORUN" reproduce prophet --scaleout --quick --queries 2 --resume "$TMPD/m.journal" >"$TMPD/merged" \
    2>"$TMPD/err" || fail "resume from the merged journal: exit $?"
grep -qF "(8 of the 8 cells read from" "$TMPD/merged" || fail "merged: $(cat "$TMPD/merged")"
diff <(tables "$TMPD/out") <(tables "$TMPD/merged") || fail "merged: other tables"
"$CORUN" reproduce merge "$TMPD/m.journal" "$TMPD/part.journal" >"$TMPD/merge" ||
    fail "merge again: exit $?"
grep -qF "part.journal: 0 records added, 8 already in" "$TMPD/merge" || fail "again: $(cat "$TMPD/merge")"
grep -qE "^$TMPD/part.journal.curves: 0 LS curves added, [1-9]" "$TMPD/merge" ||
    fail "curves again: $(cat "$TMPD/merge")"
# A curves file that will not merge is a warning: the records are merged, the exit status 0.
cp "$TMPD/part.journal" "$TMPD/y.journal"
echo "not a journal" >"$TMPD/y.journal.curves"
"$CORUN" reproduce merge "$TMPD/m2.journal" "$TMPD/y.journal" >"$TMPD/merge" 2>"$TMPD/err" ||
    fail "merge with a damaged curves file: exit $? $(cat "$TMPD/err")"
grep -qF "warning: $TMPD/y.journal.curves: not a corun reproduce journal" "$TMPD/err" ||
    fail "damaged curves file: $(cat "$TMPD/err")"
grep -qF "y.journal: 8 records added" "$TMPD/merge" || fail "damaged curves: $(cat "$TMPD/merge")"
expect_bad "merge a file that is not a journal" "$TMPD/out: not a corun reproduce journal" \
    "$CORUN" reproduce merge "$TMPD/m.journal" "$TMPD/out"
# A journal named twice, or by two names, is refused before anything is merged (it was merged
# twice, the second saying "0 records added" as if another shard's); `--` ends the options, so
# that a journal named -p can be merged (it was an unknown option).
expect_bad "a journal named twice" "part.journal and $TMPD/./part.journal are the same journal" \
    "$CORUN" reproduce merge "$TMPD/m3.journal" "$TMPD/part.journal" "$TMPD/./part.journal"
[ ! -e "$TMPD/m3.journal" ] || fail "a journal named twice: m3.journal made"
cp "$TMPD/part.journal" "$TMPD/-p.journal"
(cd "$TMPD" && "$CORUN" reproduce merge -- m4.journal -p.journal) >"$TMPD/merge" 2>"$TMPD/err" ||
    fail "merge of -p.journal after --: exit $? $(cat "$TMPD/err")"
grep -qF -- "-p.journal: 8 records added" "$TMPD/merge" || fail "after --: $(cat "$TMPD/merge")"

# merge --adopt: the whole journal as if another build had written it (its build id changed)
# goes into a copy of the cut one, this build's, whose 5 cells it shares byte for byte; the
# tables from it are the same. Refused, adding nothing: without --adopt; into a journal that
# does not exist; a journal whose shared record differs; one that shares no record; one made
# with other data.
python3 - "$TMPD/so.journal" "$TMPD" <<'PY' || fail "making the other build's journals"
import re, struct, sys
src, d = sys.argv[1], sys.argv[2]
head1, head2, body = open(src, "rb").read().split(b"\n", 2)
size = int(re.search(rb" \| result (\d+) bytes", head2).group(1))
recs = [body[i:i + 24 + size] for i in range(0, len(body), 24 + size)]
assert len(recs) == 8 and all(r[:4] == b"REC1" for r in recs)
def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h
def write(name, records, build=b"0123456789abcdef", data=None):
    h2 = re.sub(rb"corun build [0-9a-f]{16}", b"corun build " + build, head2)
    if data:
        h2 = re.sub(rb"data [0-9a-f]{16}", b"data " + data, h2)
    open(d + "/" + name, "wb").write(head1 + b"\n" + h2 + b"\n" + b"".join(records))
write("other.journal", recs)
bad = bytearray(recs[0])
bad[16] ^= 1 # a payload byte of the first cell, the checksum made again
bad[-8:] = struct.pack("=Q", fnv(bytes(bad[4:-8])))
write("bad.journal", [bytes(bad)] + recs[1:])
cost = bytearray(recs[0]) # only the core cycles differ: how the run went, not its result
cost[16 + size - 8] ^= 1
cost[-8:] = struct.pack("=Q", fnv(bytes(cost[4:-8])))
write("cost.journal", [bytes(cost)] + recs[1:])
write("apart.journal", recs[5:]) # the three cells the cut journal lacks
write("data.journal", recs, data=b"fedcba9876543210")
PY
cp "$TMPD/cut.journal" "$TMPD/adopt.journal"
expect_bad "merge another build's journal" "written by another build" \
    "$CORUN" reproduce merge "$TMPD/adopt.journal" "$TMPD/other.journal"
expect_bad "--adopt into nothing" "no such journal" \
    "$CORUN" reproduce merge --adopt "$TMPD/none.journal" "$TMPD/other.journal"
expect_bad "--adopt, a shared cell differs" "record 0/[0-9]* differs from .*adopt.journal" \
    "$CORUN" reproduce merge --adopt "$TMPD/adopt.journal" "$TMPD/bad.journal"
expect_bad "--adopt, no shared cell" "shares no record with" \
    "$CORUN" reproduce merge --adopt "$TMPD/adopt.journal" "$TMPD/apart.journal"
expect_bad "--adopt, other data" "made with other data" \
    "$CORUN" reproduce merge --adopt "$TMPD/adopt.journal" "$TMPD/data.journal"
"$CORUN" reproduce merge --adopt "$TMPD/adopt.journal" "$TMPD/other.journal" >"$TMPD/merge" \
    2>"$TMPD/err" || fail "merge --adopt: exit $? $(cat "$TMPD/err")"
grep -qF "other.journal: 3 records added, 5 already in $TMPD/adopt.journal (5 of them simulated by both builds, byte-identical)" \
    "$TMPD/merge" || fail "merge --adopt: $(cat "$TMPD/merge")"
"$CORUN" reproduce prophet --scaleout --quick --queries 2 --resume "$TMPD/adopt.journal" >"$TMPD/adopted" \
    2>"$TMPD/err" || fail "resume from the adopted journal: exit $? $(cat "$TMPD/err")"
grep -qF "(8 of the 8 cells read from" "$TMPD/adopted" || fail "adopted: $(cat "$TMPD/adopted")"
diff <(tables "$TMPD/out") <(tables "$TMPD/adopted") || fail "adopted: other tables"
# The core cycles a record counts are not compared: they depend on what the process had
# measured before the cell.
cp "$TMPD/cut.journal" "$TMPD/adopt2.journal"
"$CORUN" reproduce merge --adopt "$TMPD/adopt2.journal" "$TMPD/cost.journal" >"$TMPD/merge" \
    2>"$TMPD/err" || fail "merge --adopt, other core cycles: exit $? $(cat "$TMPD/err")"
grep -qF "cost.journal: 3 records added, 5 already in" "$TMPD/merge" || fail "cost: $(cat "$TMPD/merge")"
# --adopt of a journal of this very build is a plain merge.
"$CORUN" reproduce merge --adopt "$TMPD/adopt.journal" "$TMPD/part.journal" >"$TMPD/merge" ||
    fail "merge --adopt, this build's journal: exit $?"
grep -qxF "$TMPD/part.journal: 0 records added, 8 already in $TMPD/adopt.journal" "$TMPD/merge" ||
    fail "merge --adopt, this build's journal: $(cat "$TMPD/merge")"
"$CORUN" reproduce prophet --scaleout --quick --queries 2 --resume "$TMPD/so.journal" >"$TMPD/whole" \
    2>"$TMPD/err" || fail "resume from the whole journal: exit $?"
grep -qF "(8 of the 8 cells read from" "$TMPD/whole" || fail "whole: $(cat "$TMPD/whole")"
diff <(tables "$TMPD/out") <(tables "$TMPD/whole") || fail "resumed from the whole: other tables"
# The LS curves go to FILE.curves beside the journal: a run whose cells are all to simulate
# again reads them there and prints the same rows (shard 1/4: its two cells, one LS
# application at one load, so one curve); a curves file of another run is left as it is,
# with a warning, and the curves are measured. (Shards rather than whole runs: each whole
# quick run costs about 6 s of CPU with 2 queries, 17 s with the quick form's own.)
[ -s "$TMPD/so.journal.curves" ] || fail "no curves journal beside so.journal"
rows() { grep -E '^(gmm|pos) +(pf|nn) +[0-9]+%' "$1"; }
cp "$TMPD/so.journal.curves" "$TMPD/c.journal.curves"
"$CORUN" reproduce prophet --scaleout --quick --queries 2 --shard 1/4 --resume "$TMPD/c.journal" \
    >"$TMPD/curves" 2>"$TMPD/err" || fail "resume with only the curves: exit $? $(cat "$TMPD/err")"
grep -qxF "(1 LS curve read from $TMPD/c.journal.curves, not measured again)" "$TMPD/curves" ||
    fail "curves not read: $(cat "$TMPD/curves")"
[ "$(rows "$TMPD/curves" | wc -l)" = 2 ] || fail "with the curves read: not two rows: $(cat "$TMPD/curves")"
[ -z "$(rows "$TMPD/curves" | grep -vxFf <(rows "$TMPD/out"))" ] ||
    fail "with the curves read: other rows: $(cat "$TMPD/curves")"
cp "$TMPD/so.journal.curves" "$TMPD/q.journal.curves"
"$CORUN" reproduce prophet --scaleout --quick --queries 3 --shard 1/4 --resume "$TMPD/q.journal" \
    >"$TMPD/other" 2>"$TMPD/err" || fail "another run's curves file: exit $? $(cat "$TMPD/err")"
grep -qF "the curves are measured and not kept" "$TMPD/err" || fail "no warning: $(cat "$TMPD/err")"
cmp -s "$TMPD/so.journal.curves" "$TMPD/q.journal.curves" || fail "another run's curves changed"
! grep -q "LS curves read" "$TMPD/other" || fail "another run's curves read"
set +e
"$CORUN" reproduce prophet --colocation --quick --resume "$TMPD/so.journal" >/dev/null \
    2>"$TMPD/err"
rc=$?
set -e
[ $rc -ne 0 ] && grep -qF "so.journal" "$TMPD/err" || fail "another experiment's journal: $rc $(cat "$TMPD/err")"
expect_bad "--shard without --resume" "needs --resume FILE" \
    "$CORUN" reproduce prophet --scaleout --quick --queries 2 --shard 1/2
expect_bad "shard 3 of 2" "--shard" \
    "$CORUN" reproduce prophet --scaleout --quick --queries 2 --shard 3/2 --resume "$TMPD/x.journal"
[ ! -e "$TMPD/x.journal" ] || fail "a refused shard made its journal"

set +e
"$CORUN" reproduce prophet --accuracy --scaleout >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "two experiments: exit $rc"
grep -qF "give one of --accuracy, --colocation and --scaleout" "$TMPD/err" || fail "$(cat "$TMPD/err")"
echo "reproduce prophet --scaleout --quick: 8 cells, 5 deciders whose counts follow from the cells"
