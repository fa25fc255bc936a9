#!/usr/bin/env bash
# corun reproduce --resume FILE: a run killed part-way, rerun with the same FILE (at another
# -j), reads the mixes the journal kept, runs the rest and prints the same table as a run never
# interrupted; a third run simulates nothing; a worker killed part-way fails only its mix,
# which the next run makes up; the journal is refused for other options, another
# file type, and in a missing directory, with a message and exit status 2. The accuracy
# experiments take it too, one file for all their parts.
. "$(dirname "$0")/../lib.sh"

export XDG_DATA_HOME="$TMPD/xdg"
# --fresh: the runs the journal lacks are simulated, not read from the catalog's finished runs.
args=(smqos --threshold --mixes 4 --epochs 2 --epoch-cycles 50000 --fresh)
table() { grep -v -e ' s wall' -e '^resumed from' "$1"; }

"$CORUN" reproduce "${args[@]}" -j 1 >"$TMPD/whole" 2>/dev/null || fail "uninterrupted: exit $?"

# Kill the run once the journal holds its first mix (header and one record), before the end.
"$CORUN" reproduce "${args[@]}" -j 1 --resume "$TMPD/j" >"$TMPD/killed" 2>/dev/null &
pid=$!
for _ in $(seq 1 600); do
    size=$(stat -c %s "$TMPD/j" 2>/dev/null || echo 0)
    [ "$size" -gt 3000 ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
killed_at=$(stat -c %s "$TMPD/j" 2>/dev/null || echo 0)
kill -9 "$pid" 2>/dev/null || fail "the run ended before it could be killed"
wait "$pid" 2>/dev/null || true
! grep -q "^published beside ours" "$TMPD/killed" || fail "the killed run printed its table"

# A stop by a signal is not silent: the run says what is kept (it ended without a word), and
# still dies of the signal.
stopped() { # NAME WANT ARGS...
    local name=$1 want=$2 rc=0
    shift 2
    "$CORUN" reproduce "${args[@]}" -j 1 "$@" >/dev/null 2>"$TMPD/$name.err" &
    pid=$!
    sleep 1
    kill -TERM "$pid" 2>/dev/null || fail "$name: the run ended before it could be stopped"
    wait "$pid" || rc=$?
    [ $rc = 143 ] && grep -qxF "$want" "$TMPD/$name.err" ||
        fail "$name: exit $rc, $(cat "$TMPD/$name.err")"
}
stopped term-resume "corun: reproduce: stopped by SIGTERM; what finished is kept in $TMPD/jt: the same command goes on from it" \
    --resume "$TMPD/jt"
stopped term "corun: reproduce: stopped by SIGTERM; nothing is kept (--resume FILE keeps each mix, pair or cell as it finishes, and the same command goes on from it)"

# A run resumed from JOURNAL with -j JOBS reads READ (a regex) of the 4 mixes from it and
# prints the uninterrupted run's table; its output is left in $TMPD/NAME.
resumes() { # NAME JOBS JOURNAL READ
    "$CORUN" reproduce "${args[@]}" -j "$2" --resume "$3" >"$TMPD/$1" 2>/dev/null ||
        fail "$1: exit $? $(cat "$TMPD/$1")"
    grep -Eq "^resumed from $3: $4 of 4 mixes read from it" "$TMPD/$1" ||
        fail "$1: not $4 of 4 mixes read: $(grep resumed "$TMPD/$1")"
    diff <(table "$TMPD/whole") <(table "$TMPD/$1") >"$TMPD/diff" ||
        fail "$1: the table differs: $(cat "$TMPD/diff")"
}
resumes resumed 2 "$TMPD/j" "[1-3]"
resumes again 1 "$TMPD/j" 4 # the third run simulates nothing

# A torn last record (a kill while writing it) is cut off; its mix runs again.
size=$(stat -c %s "$TMPD/j")
truncate -s $((size - 7)) "$TMPD/j"
"$CORUN" reproduce "${args[@]}" -j 1 --resume "$TMPD/j" >"$TMPD/torn" 2>/dev/null ||
    fail "torn: exit $?"
grep -q "^resumed from $TMPD/j: 3 of 4 mixes" "$TMPD/torn" || fail "torn: $(cat "$TMPD/torn")"
grep -q "cut off a torn last record" "$TMPD/torn" || fail "no torn note: $(cat "$TMPD/torn")"
diff <(table "$TMPD/whole") <(table "$TMPD/torn") >/dev/null || fail "the torn-resume table differs"

# A damaged record in the middle (a flipped bit) is skipped alone: the records after it are
# read (everything from it on was cut off, and three mixes ran again), and its mix runs again.
cp "$TMPD/j" "$TMPD/d"
python3 - "$TMPD/d" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
head = d.index(b"\n", d.index(b"\n") + 1) + 1
d[head + 100] ^= 1  # in the first record's result
open(sys.argv[1], "wb").write(d)
PY
"$CORUN" reproduce "${args[@]}" -j 1 --resume "$TMPD/d" >"$TMPD/mid" 2>/dev/null ||
    fail "damaged: exit $?"
grep -q "^resumed from $TMPD/d: 3 of 4 mixes" "$TMPD/mid" || fail "damaged: $(cat "$TMPD/mid")"
grep -q "skipped 1 damaged record in its middle, whose mix ran again" "$TMPD/mid" ||
    fail "no note of the damaged record: $(cat "$TMPD/mid")"
diff <(table "$TMPD/whole") <(table "$TMPD/mid") >/dev/null || fail "the damaged-resume table differs"

# A worker killed part-way fails only its mix (the first: the first worker has it), named with
# how its worker ended, exit status 1; the others are kept in the journal, and the rerun runs
# that mix alone and prints the uninterrupted table.
run_killing_first_worker "$TMPD/lost" /dev/null \
    "$CORUN" reproduce "${args[@]}" -j 2 --resume "$TMPD/w"
rc=$killed_rc
[ "$rc" = 1 ] || fail "a run with a killed worker: exit $rc, expected 1: $(cat "$TMPD/lost")"
grep -Eq "^failed: [^ ]+: its worker process was killed by signal 9" "$TMPD/lost" ||
    fail "the killed worker's mix is not named: $(cat "$TMPD/lost")"
[ "$(grep -c '^failed: ' "$TMPD/lost")" = 1 ] || fail "more than one mix failed: $(cat "$TMPD/lost")"
resumes healed 2 "$TMPD/w" 3 # after the killed worker

expect_bad() { # WHAT MESSAGE-REGEX ARGS...
    local what=$1 msg=$2 rc=0
    shift 2
    "$CORUN" reproduce "$@" >/dev/null 2>"$TMPD/err" || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit $rc, expected 2"
    grep -Eq "$msg" "$TMPD/err" || fail "$what: $(cat "$TMPD/err")"
}
# Only what differs is named (both whole lines overflowed the message and cut its advice).
expect_bad "other options" "j: written for another run \\(it holds: 2 epochs of 50000 cycles; this run: 3 epochs of 50000 cycles\\); give another file or remove it$" \
    smqos --threshold --mixes 4 --epochs 3 --epoch-cycles 50000 --resume "$TMPD/j"
echo "not a journal" >"$TMPD/text"
expect_bad "a text file" "text: not a corun reproduce journal \(its first line is 'not a journal'" \
    smqos --threshold --mixes 4 --resume "$TMPD/text"
expect_bad "a missing directory" "nodir/j: .*No such file or directory" \
    smqos --threshold --resume "$TMPD/nodir/j"
cmp -s "$TMPD/text" <(echo "not a journal") || fail "the refused file was changed"

# Accuracy: both Themis parts in one journal; the rerun reads all 6 mixes and agrees.
# (100 K-cycle epochs: the journal's bookkeeping does not depend on their length.)
acc=(themis --accuracy --quick --epochs 1 --epoch-cycles 100000 --predictors themis)
"$CORUN" reproduce "${acc[@]}" --resume "$TMPD/acc" -j 2 >"$TMPD/acc1" 2>"$TMPD/acc1.err" ||
    fail "accuracy: exit $?"
# Its progress lines (stderr is a file) say which part an ETA belongs to.
grep -Eq '^themis-pairs\.cfg \(part 1 of 2\): [0-9]+ of [0-9]+ mixes done, ' "$TMPD/acc1.err" &&
    grep -Eq '^themis-triples\.cfg \(part 2 of 2\): [0-9]+ of [0-9]+ mixes done, ' "$TMPD/acc1.err" ||
    fail "accuracy: progress lines without their part: $(cat "$TMPD/acc1.err")"
"$CORUN" reproduce "${acc[@]}" --resume "$TMPD/acc" -j 1 >"$TMPD/acc2" 2>/dev/null ||
    fail "accuracy again: exit $?"
[ "$(grep -c '^resumed from .*: 0 of [0-9]* mixes read from it; each mix is kept' "$TMPD/acc1")" = 2 ] ||
    fail "accuracy: a new journal is not announced: $(grep resumed "$TMPD/acc1")"
[ "$(grep -c '^resumed from .*: \([0-9]*\) of \1 mixes read' "$TMPD/acc2")" = 2 ] ||
    fail "accuracy: not every part resumed: $(grep resumed "$TMPD/acc2")"
diff <(table "$TMPD/acc1") <(table "$TMPD/acc2") >"$TMPD/diff" ||
    fail "accuracy tables differ: $(cat "$TMPD/diff")"
# A journal that cannot be opened or made is bad input before anything is printed (the
# heading came first, and Prophet's experiments said exit 1), for each family of experiments.
for exp in "hsm --accuracy" "hsm --fairness" "prophet --accuracy"; do
    for bad in "$TMPD/no/such/dir/j" "$TMPD"; do
        set +e
        # shellcheck disable=SC2086
        "$CORUN" reproduce $exp --quick --resume "$bad" >"$TMPD/bad.out" 2>"$TMPD/bad.err"
        rc=$?
        set -e
        [ $rc = 2 ] && [ ! -s "$TMPD/bad.out" ] &&
            grep -q "^corun: reproduce.*: $bad: cannot open for reading and writing: " "$TMPD/bad.err" ||
            fail "$exp --resume $bad: exit $rc: $(cat "$TMPD/bad.out" "$TMPD/bad.err")"
    done
done
[ ! -e "$TMPD/no" ] || fail "a refused --resume made its directory"
# A device or a FIFO is no journal: /dev/null took every result and kept none (exit 0), and a
# FIFO kept the run waiting forever once its mixes were done. (/dev/null first: unfixed, the
# FIFO would hang the test.)
mkfifo "$TMPD/fifo"
for bad in /dev/null "$TMPD/fifo"; do
    set +e
    "$CORUN" reproduce hsm --fairness --mixes 1 --quick --epochs 1 --epoch-cycles 10000 \
        --catalog "$TMPD/dev.db" --resume "$bad" >"$TMPD/bad.out" 2>"$TMPD/bad.err"
    rc=$?
    set -e
    [ $rc = 2 ] && [ ! -s "$TMPD/bad.out" ] &&
        grep -qx "corun: reproduce: $bad: not a regular file (a FIFO or a device); a journal is a file corun keeps results in, give the name of one (it is made when missing)" "$TMPD/bad.err" ||
        fail "--resume $bad: exit $rc: $(cat "$TMPD/bad.out" "$TMPD/bad.err")"
done
set +e
"$CORUN" reproduce hsm --accuracy --quick --resume "" >"$TMPD/bad.out" 2>"$TMPD/bad.err"
rc=$?
set -e
[ $rc = 2 ] && [ ! -s "$TMPD/bad.out" ] &&
    grep -qx "corun: reproduce: --resume: expected a file name, got an empty one" "$TMPD/bad.err" ||
    fail "--resume '': exit $rc: $(cat "$TMPD/bad.out" "$TMPD/bad.err")"
echo "resume: killed at $killed_at bytes of journal; tables equal after resume, torn tail, rerun"
