#!/usr/bin/env bash
# corun reproduce prophet: the quick accuracy experiment prints a row per pair (measured and
# predicted degradation, prophet's, the sequential model's and the PCIe bubble's errors) and a
# summary per class beside Prophet's published 5.9 / 5.1 / 5.5 % (and the bubble's 50.8 % for
# the PCIe-intensive pairs); the quick co-location experiment prints 16
# rows (0 to 15 batch instances) and the most instances each of measured, prophet and
# sequential allows; --list shows both; bad usage is refused with exit status 2; with --resume
# FILE a second run reads every pair from the journal and prints the same tables, and -j 2
# from part of a journal prints the same accuracy table. --shard K/N: shard 3/6 of a journal
# holding pairs 0 and 1 simulates only pair 2 (the cheapest) and prints the rows of the three
# pairs it has and what it did instead of the summary; a shard with no pair of its own to run
# simulates nothing; --queries N sets the runs' queries and is part of the journal's identity.
. "$(dirname "$0")/../lib.sh"

# Its help is its own (it was the spatial experiments' usage, --accuracy|--quads): the three
# experiments in the synopsis and each option.
"$CORUN" reproduce prophet --help >"$TMPD/help" || fail "prophet --help: exit $?"
head -1 "$TMPD/help" | grep -q '^usage: corun reproduce prophet --accuracy | --colocation | --scaleout' &&
    grep -q '^  --queries N ' "$TMPD/help" || fail "prophet --help: $(cat "$TMPD/help")"
"$CORUN" help reproduce prophet | cmp -s - "$TMPD/help" || fail "help reproduce prophet differs"
"$CORUN" reproduce --list >"$TMPD/list" || fail "--list: exit $?"
grep -q '^prophet .*--accuracy' "$TMPD/list" && grep -q '^prophet .*--colocation' "$TMPD/list" \
    || fail "--list: $(cat "$TMPD/list")"

"$CORUN" reproduce prophet --accuracy --quick --resume "$TMPD/acc.journal" >"$TMPD/acc" \
    2>"$TMPD/err" || fail "--accuracy --quick: exit $? $(cat "$TMPD/err")"
# the same run again reads every pair from its journal and prints the same table
"$CORUN" reproduce prophet --accuracy --quick --resume "$TMPD/acc.journal" >"$TMPD/acc2" \
    2>"$TMPD/err" || fail "--accuracy --quick --resume: exit $? $(cat "$TMPD/err")"
grep -qF "(6 read from $TMPD/acc.journal, not simulated again)" "$TMPD/acc2" || fail "$(cat "$TMPD/acc2")"
diff "$TMPD/acc" <(grep -v 'read from' "$TMPD/acc2") || fail "resumed accuracy: another table"
# The journal's first two records and half its third: shard 3/6 (the third of six runs of
# consecutive pairs) runs pair 2 alone.
cp "$TMPD/acc.journal" "$TMPD/third.journal"
head_bytes=$(head -2 "$TMPD/acc.journal" | wc -c)
record=$((($(stat -c %s "$TMPD/acc.journal") - head_bytes) / 6))
truncate -s $((head_bytes + record * 5 / 2)) "$TMPD/third.journal"
"$CORUN" reproduce prophet --accuracy --quick --shard 3/6 --resume "$TMPD/third.journal" \
    >"$TMPD/shard" 2>"$TMPD/err" || fail "--shard 3/6: exit $? $(cat "$TMPD/err")"
grep -qF "shard 3/6: 1 of the 6 pairs simulated into $TMPD/third.journal (2 read from it)" \
    "$TMPD/shard" || fail "--shard 3/6: $(cat "$TMPD/shard")"
[ "$(grep -cE '^(compute-intensive|PCIe-intensive|low-contention) +[a-z]' "$TMPD/shard")" = 3 ] &&
    ! grep -qE '^(compute-intensive|PCIe-intensive|low-contention) +2 ' "$TMPD/shard" ||
    fail "a shard's rows and summary: $(cat "$TMPD/shard")"
# -j 2 from three quarters of the journal (four of its six records and a torn fifth): the
# missing pairs run on two workers, the table is the same (but for the core cycles: a pair
# measures what its process's memo lacks, so the count depends on who ran what)
cp "$TMPD/acc.journal" "$TMPD/part.journal"
truncate -s $(($(stat -c %s "$TMPD/acc.journal") * 3 / 4)) "$TMPD/part.journal"
"$CORUN" reproduce prophet --accuracy --quick -j 2 --resume "$TMPD/part.journal" >"$TMPD/acc3" \
    2>"$TMPD/err" || fail "--accuracy --quick -j 2: exit $? $(cat "$TMPD/err")"
grep -qE '^\(4 read from ' "$TMPD/acc3" || fail "-j 2 from part of a journal: $(cat "$TMPD/acc3")"
# The count of cycles has its own line (it ended the closing parenthetical's).
grep -qE '^[0-9.]+ M core cycles simulated\.$' "$TMPD/acc" || fail "the cycles' line: $(tail -3 "$TMPD/acc")"
nocycles() { sed 's/ *[0-9.]* M core cycles simulated\.$//'; }
diff <(nocycles <"$TMPD/acc") <(grep -v 'read from' "$TMPD/acc3" | nocycles) || fail "-j 2: another table"
python3 - "$TMPD/acc" <<'PY' || fail "accuracy table: $(cat "$TMPD/acc")"
import re, sys
text = open(sys.argv[1]).read()
rows = re.findall(r"^(compute-intensive|PCIe-intensive|low-contention) +(\w[\w-]*) +(\w[\w-]*) +"
                  r"([0-9.]+)x +([0-9.]+)x +([0-9.]+)% +([0-9.]+)x +([0-9.]+)% +([0-9.]+)x +"
                  r"([0-9.]+)%$", text, re.M)
assert len(rows) == 6, rows
for cls, ls, batch, meas, pro, perr, seq, serr, bub, berr in rows:
    meas, pro, perr, bub, berr = float(meas), float(pro), float(perr), float(bub), float(berr)
    assert meas >= 0.9, (ls, batch, meas)  # co-location does not make a query faster
    slack = 100 * 0.01 / meas + 0.06  # the printed x-values are rounded to 0.005
    assert abs(abs(pro - meas) / meas * 100 - perr) < slack, (ls, batch)  # the error is the rows'
    assert abs(abs(bub - meas) / meas * 100 - berr) < slack, (ls, batch)
    assert bub >= 0.995, (ls, batch, bub)  # a bubble's pressure does not speed a query up
summary = re.findall(r"^(compute-intensive|PCIe-intensive|low-contention) +2 +([0-9.]+)% +"
                     r"([0-9.]+)% +([0-9.]+)% +([0-9.]+)% +(-|[0-9.]+%)$", text, re.M)
assert [(c, p, b) for c, _, p, _, _, b in summary] == [("compute-intensive", "5.9", "-"),
                                                       ("PCIe-intensive", "5.1", "50.8%"),
                                                       ("low-contention", "5.5", "-")], summary
PY

# (2 queries per run: a third of the quick form's 6 queries' cost; the rows' checks below hold
# for any count)
"$CORUN" reproduce prophet --colocation --quick --queries 2 --resume "$TMPD/col.journal" >"$TMPD/col" \
    2>"$TMPD/err" || fail "--colocation --quick: exit $? $(cat "$TMPD/err")"
# (--resume=FILE, the option's other form)
"$CORUN" reproduce prophet --colocation --quick --queries 2 --resume="$TMPD/col.journal" >"$TMPD/col2" \
    2>"$TMPD/err" || fail "--colocation --quick --resume=: exit $? $(cat "$TMPD/err")"
grep -qF "read from $TMPD/col.journal" "$TMPD/col2" || fail "--resume=FILE not read: $(cat "$TMPD/col2")"
diff "$TMPD/col" <(grep -v 'read from' "$TMPD/col2") || fail "resumed co-location: another table"
# Another experiment's journal is bad input, exit 2 as in every other experiment (it was 1).
expect_bad "--accuracy --resume a co-location journal" "$TMPD/col.journal: written for another run" \
    "$CORUN" reproduce prophet --accuracy --quick --queries 2 --resume "$TMPD/col.journal"
"$CORUN" reproduce prophet --colocation --quick --shard 2/2 --resume "$TMPD/col-shard.journal" \
    >"$TMPD/col3" 2>"$TMPD/err" || fail "--colocation --shard 2/2: exit $? $(cat "$TMPD/err")"
grep -qF "shard 2/2: 0 of the 1 pairs simulated" "$TMPD/col3" || fail "empty shard: $(cat "$TMPD/col3")"
grep -qF "prophet --colocation --quick: on k40, 6 Poisson queries of the LS application" "$TMPD/col3" ||
    fail "the quick form's own query count: $(head -2 "$TMPD/col3")"
# --queries N: the runs' query count (an empty shard, so nothing is simulated), written into
# the journal's identity: the same journal with another count is refused.
"$CORUN" reproduce prophet --colocation --quick --queries 3 --shard 2/2 \
    --resume "$TMPD/col-q.journal" >"$TMPD/colq" 2>"$TMPD/err" || fail "--queries 3: $(cat "$TMPD/err")"
grep -qF "on k40, 3 Poisson queries of the LS application" "$TMPD/colq" || fail "--queries 3: $(cat "$TMPD/colq")"
# One query is one ("1 closed-loop queries").
for study in colocation:Poisson accuracy:closed-loop; do
    "$CORUN" reproduce prophet --"${study%:*}" --quick --queries 1 --shard 7/7 \
        --resume "$TMPD/q1-${study%:*}.journal" >"$TMPD/q1" 2>"$TMPD/err" ||
        fail "--${study%:*} --queries 1: $(cat "$TMPD/err")"
    grep -qF " 1 ${study#*:} query of the LS application" "$TMPD/q1" || fail "--queries 1: $(cat "$TMPD/q1")"
done
set +e
"$CORUN" reproduce prophet --colocation --quick --queries 4 --shard 2/2 \
    --resume "$TMPD/col-q.journal" >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -ne 0 ] && grep -qF "it holds: prophet --colocation --queries 3 --quick" "$TMPD/err" ||
    fail "a journal of 3 queries taken for 4: $rc $(cat "$TMPD/err")"
[ "$(grep -cE '^ *([0-9]|1[0-5]) +[0-9.]+x (met|no) +[0-9.]+x +[0-9.]+x (met|no) +[0-9.]+x (met|no) +[0-9.]+% +[0-9.]+x (met|no)$' \
    "$TMPD/col")" -eq 16 ] || fail "co-location rows: $(cat "$TMPD/col")"
grep -qE '^ +0 +1\.00x met +1\.00x +1\.00x met +1\.00x met +[0-9.]+% +1\.00x met$' "$TMPD/col" \
    || fail "n = 0 is not the reference"
grep -qF 'QoS target (Prophet 7.3): mean latency <= 2.0 x' "$TMPD/col" || fail "no QoS target line"
grep -qF 'prophet --colocation --quick: on k40, 2 Poisson queries of the LS application (at 30 % of the rate it serves alone)' \
    "$TMPD/col" || fail "no load in the heading: $(head -3 "$TMPD/col")"
grep -qE '^prophet +[0-9.]+ % +[0-9]+ of 1 \([0-9.]+ %\)$' "$TMPD/col" || fail "no summary: $(cat "$TMPD/col")"
grep -qE '^prophet-even +[0-9.]+ % +[0-9]+ of 1 \([0-9.]+ %\) +\(corun.s variant\)$' "$TMPD/col" \
    || fail "no prophet-even summary: $(cat "$TMPD/col")"
grep -qF 'Prophet 7.3 (published, 77 co-locations): prophet 49.9 %, oracle 51.8 %' "$TMPD/col" \
    || fail "no published figures"
grep -qE '^most pf instances keeping the target: measured -?[0-9]+, prophet -?[0-9]+, sequential -?[0-9]+, prophet-even -?[0-9]+ ' \
    "$TMPD/col" || fail "no summary line: $(cat "$TMPD/col")"
# Prophet's choice, restated below the table: its row's latency, verdict and SM time busy, and
# the busy time alone (n = 0), as the rows give them.
python3 - "$TMPD/col" <<'PY' || fail "prophet's choice against its row: $(cat "$TMPD/col")"
import re, sys
text = open(sys.argv[1]).read()
rows = {int(m.group(1)): m for m in re.finditer(
    r"^ *(\d+) +([\d.]+)x (met|no) +[\d.]+x +[\d.]+x (?:met|no) +[\d.]+x (?:met|no) +([\d.]+)% ", text, re.M)}
p = int(re.search(r"^most pf instances keeping the target: measured -?\d+, prophet (-?\d+),", text, re.M).group(1))
choice = re.search(r"^prophet's choice on the core: ([\d.]+)x \((met|violated)\); SM time busy ([\d.]+) % "
                   r"against ([\d.]+) % alone\.", text, re.M)
if p < 0:
    assert not choice, "a choice line without a choice"
else:
    row = rows[p]
    assert choice.group(1) == row.group(2), (choice.group(0), row.group(0))
    assert (choice.group(2) == "met") == (row.group(3) == "met"), (choice.group(0), row.group(0))
    assert choice.group(3) == row.group(4) and choice.group(4) == rows[0].group(4), choice.group(0)
    assert 0 < float(rows[0].group(4)) <= 100, rows[0].group(0)
PY

set +e
"$CORUN" reproduce prophet --quick >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "prophet without an experiment: exit $rc"
grep -qF "give one of --accuracy, --colocation and --scaleout" "$TMPD/err" || fail "$(cat "$TMPD/err")"
set +e
"$CORUN" reproduce prophet --accuracy --bogus >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "--bogus: exit $rc"
grep -qF "unknown argument '--bogus'" "$TMPD/err" || fail "$(cat "$TMPD/err")"
for bad in "--accuracy -j 0" "--accuracy -j x" "--colocation --jobs=65" "--scaleout -j 65" \
    "--scaleout --queries 0"; do
    set +e
    # shellcheck disable=SC2086
    "$CORUN" reproduce prophet $bad --quick >"$TMPD/out" 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$bad: exit $rc"
    grep -qE -- "^corun: (-j|--queries): expected a whole number from 1 to [0-9]+, got '[0-9x]+'$" \
        "$TMPD/err" || fail "$bad: $(cat "$TMPD/err")"
done
# A broken data file fails every pair: each experiment exits 1, names the file and line once,
# counts the other failures (--accuracy has 6 pairs, --colocation 1), and prints no summary;
# the last line says how to simulate only the rest (--colocation runs without a journal).
mkdir -p "$TMPD/bad"
cp -r "$top_srcdir/data" "$TMPD/bad/"
echo 'garbage {' >"$TMPD/bad/data/gpus/k40.cfg"
for x in --accuracy --colocation; do
    journal=(--resume "$TMPD/bad$x.journal")
    [ $x = --accuracy ] || journal=()
    set +e
    CORUN_DATADIR="$TMPD/bad" "$CORUN" reproduce prophet $x --quick -j 2 "${journal[@]}" \
        >"$TMPD/out" 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc -eq 1 ] || fail "$x with a broken k40.cfg: exit $rc"
    [ "$(grep -c 'k40.cfg:1: libconfig syntax' "$TMPD/err")" -eq 1 ] || fail "$x: $(cat "$TMPD/err")"
    [ $x = --colocation ] || grep -qF '5 more pair(s) failed' "$TMPD/err" ||
        fail "$x: no count of the others: $(cat "$TMPD/err")"
    if grep -q 'published' "$TMPD/out"; then fail "$x: a summary after failures"; fi
    if [ $x = --accuracy ]; then
        line="6 of 6 pairs failed (named on stderr), 0 finished; the summary needs every pair: the same command with --resume $TMPD/bad$x.journal simulates only the rest"
    else
        line="1 of 1 pairs failed (named on stderr), 0 finished; the summary needs every pair (with --resume FILE a rerun simulates only what is missing)"
    fi
    grep -qxF "$line" "$TMPD/out" || fail "$x: no line for the failed pairs: $(cat "$TMPD/out")"
done
# A worker killed part-way (the first: it has the first pair) fails that pair alone: exit 1,
# the pair named; the rows of the five that finished are printed all the same (pair 2, run by
# the other worker, waited for the first; the other four are the journal's), then what was
# lost, and no summary. The journal lacks pairs 0 and 2 (2 is the cheapest to run).
python3 - "$TMPD/acc.journal" "$TMPD/lost.journal" <<'PY' || fail "a journal without pairs 0 and 2"
import struct, sys
data = open(sys.argv[1], "rb").read()
first, second, _ = data.split(b"\n", 2)
head = len(first) + len(second) + 2
record = 16 + int(second.rsplit(b"result ", 1)[1].split()[0]) + 8  # magic, part, index, size; sum
out = data[:head]
for at in range(head, len(data), record):
    if struct.unpack_from("<I", data, at + 8)[0] not in (0, 2):
        out += data[at:at + record]
assert len(out) == head + 4 * record, len(out)
open(sys.argv[2], "wb").write(out)
PY
run_killing_first_worker "$TMPD/lost" "$TMPD/lost.err" \
    "$CORUN" reproduce prophet --accuracy --quick -j 2 --resume "$TMPD/lost.journal"
rc=$killed_rc
[ $rc -eq 1 ] || fail "a killed worker: exit $rc: $(cat "$TMPD/lost.err")"
grep -q '^corun: reproduce prophet: gmm beside md: its worker process was killed by signal 9' \
    "$TMPD/lost.err" || fail "the killed worker's pair is not named: $(cat "$TMPD/lost.err")"
[ "$(grep -cE '^[a-zA-Z-]+ +[a-z-]+ +[a-z0-9-]+ +[0-9.]+x ' "$TMPD/lost")" -eq 5 ] ||
    fail "a killed worker: not the five other rows: $(cat "$TMPD/lost")"
grep -qxF "1 of 6 pairs failed (named on stderr), 5 finished; the summary needs every pair: the same command with --resume $TMPD/lost.journal simulates only the rest" \
    "$TMPD/lost" || fail "a killed worker: no line for the failed pair: $(cat "$TMPD/lost")"
if grep -q 'published' "$TMPD/lost"; then fail "a summary after a killed worker"; fi
echo "reproduce prophet: quick accuracy (6 pairs, 3 classes beside 5.9/5.1/5.5 %) and co-location (16 rows) printed; bad usage refused; a broken data file exits 1; a killed worker loses its pair alone"
