#!/usr/bin/env bash
# Issue 21's command-line defects, one check each: what used to hang, write where it should
# not, or be accepted silently is refused up front with a message naming the place.
. "$(dirname "$0")/../lib.sh"
# The runs below check refusals, notes and paths, not what is simulated: an epoch of the small
# test scenario (16 SMs, 20 K cycles) takes a tenth of a second, one of the default about 3 s.
small="$top_srcdir/tests/data/good/small.cfg"

expect_refused() { # WHAT MESSAGE-REGEX COMMAND...
    local what=$1 want=$2
    shift 2
    set +e
    "$@" >"$TMPD/out" 2>"$TMPD/err"
    rc=$? # the caller may look at it
    set -e
    [ $rc -ne 0 ] || fail "$what: accepted"
    grep -Eq -- "$want" "$TMPD/err" || fail "$what: want /$want/, got: $(cat "$TMPD/err")"
}

# Defect 4: dram-trace read /dev/zero without end and blocked on a FIFO.
expect_refused "dram-trace /dev/zero" "/dev/zero: cannot read: not a regular file" \
    "$CORUN" dram-trace /dev/zero
mkfifo "$TMPD/fifo"
expect_refused "dram-trace FIFO" "fifo: cannot read: not a regular file" \
    "$CORUN" dram-trace "$TMPD/fifo"
# check, run and the workbench waited for a writer on it, in the probes that tell a scenario
# from a lesson, suite or profile (timeout: the unfixed ones hang).
for cmd in check run tui; do
    expect_refused "$cmd FIFO" "fifo: cannot read: not a regular file \(expected a libconfig file\)" \
        timeout 60 "$CORUN" $cmd "$TMPD/fifo"
done

# Defect 11: the same file for the run and the catalog; a catalog that cannot be made, said
# before the run (which leaves no file); empty names; missing traces; an endless query.
expect_refused "--out = --catalog" "--out and --catalog both name .*: expected two files" \
    "$CORUN" run "$small" --epochs 1 --out "$TMPD/same" --catalog "$TMPD/same"
[ ! -e "$TMPD/same" ] || fail "--out = --catalog left $TMPD/same behind"
# A legal name of 245 bytes: the temporary name beside it would pass 255, so it is another
# (the run was refused, "File name too long").
long=$(printf 'a%.0s' $(seq 245)).h5
"$CORUN" run "$small" --epochs 1 --out "$TMPD/$long" --catalog "$TMPD/long.db" >/dev/null 2>"$TMPD/err" &&
    "$CORUN" show "$TMPD/$long" >/dev/null || fail "a 248-byte run file name: $(cat "$TMPD/err")"
# The same file spelt two ways (it made the catalog, then refused the run file it was).
mkdir -p "$TMPD/sp"
(cd "$TMPD/sp" && "$CORUN" run "$small" --epochs 1 --out same.h5 --catalog "$TMPD/sp/./same.h5") \
    >/dev/null 2>"$TMPD/err" && fail "--out and --catalog spelt two ways: accepted"
grep -q -- "--out and --catalog both name same.h5: expected two files" "$TMPD/err" &&
    [ ! -e "$TMPD/sp/same.h5" ] || fail "--out = --catalog spelt two ways: $(cat "$TMPD/err"; ls "$TMPD/sp")"
expect_refused "unusable catalog" \
    "cannot create catalog $TMPD/no/such/c.db: .*; the run was not started" \
    "$CORUN" run "$small" --epochs 1 --out "$TMPD/r.h5" --catalog "$TMPD/no/such/c.db"
[ ! -e "$TMPD/r.h5" ] || fail "an unusable catalog left a run file behind"
[ ! -e "$TMPD/no" ] || fail "--catalog made directories"
! grep -q '^ *1 ' "$TMPD/out" || fail "an unusable catalog: the run was simulated first"
# A catalog named with --catalog is refused without --out too (it ran, with a note, and the
# catalog asked for went unused).
expect_refused "an unusable --catalog without --out" \
    "cannot create catalog $TMPD/no/such/c.db: .*; the run was not started" \
    "$CORUN" run "$small" --epochs 1 --catalog "$TMPD/no/such/c.db"
# The default catalog, unusable, without --out: there is no row to lose, so the run goes on
# without the trace cache, a note says so, and it prints what a run with a catalog prints.
: >"$TMPD/xdg-file"
XDG_DATA_HOME="$TMPD/xdg-file" "$CORUN" run "$small" --epochs 1 >"$TMPD/nocat" 2>"$TMPD/nocat.err" ||
    fail "a run without a usable catalog failed: $(cat "$TMPD/nocat.err")"
grep -q "note: no trace cache (.*$TMPD/xdg-file" "$TMPD/nocat.err" ||
    fail "no note on the missing trace cache: $(cat "$TMPD/nocat.err")"
"$CORUN" run "$small" --epochs 1 --catalog "$TMPD/c1.db" >"$TMPD/withcat" 2>/dev/null
cmp -s "$TMPD/nocat" "$TMPD/withcat" || fail "a run without its catalog printed otherwise:
$(diff "$TMPD/nocat" "$TMPD/withcat")"
expect_refused "--predictor ''" "--predictor: expected a name, got an empty one" \
    "$CORUN" run "$small" --epochs 1 --predictor ''
expect_refused "--allocator ''" "--allocator: expected a name, got an empty one" \
    "$CORUN" run "$small" --epochs 1 --allocator ''
expect_refused "bench --traces /missing" \
    "--traces $TMPD/missing: cannot read $TMPD/missing/stream.trace: No such file" \
    "$CORUN" bench --quick --traces "$TMPD/missing"
grep -q 'GPU core' "$TMPD/out" && fail "bench timed the core before finding the traces missing"
# A trace that does not parse is refused, exit 2, before the core is timed (it was found after
# 20 s of the core benchmark, exit 1).
mkdir "$TMPD/badtraces"
for p in stream random mix mix2k; do printf '0x40 R\n0x80 W\n' >"$TMPD/badtraces/$p.trace"; done
printf '0x40 R\n0xZZ Q\n' >"$TMPD/badtraces/mix.trace"
set +e
"$CORUN" bench --quick --traces "$TMPD/badtraces" >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "bench --traces, a bad line: exit $rc, expected 2: $(cat "$TMPD/err")"
[ "$(cat "$TMPD/err")" = "corun: bench: --traces $TMPD/badtraces: $TMPD/badtraces/mix.trace:2: expected \"0xADDR R|W\", got \"0xZZ Q\"" ] ||
    fail "bench --traces, a bad line: $(cat "$TMPD/err")"
[ ! -s "$TMPD/out" ] || fail "bench timed before finding a bad trace: $(cat "$TMPD/out")"
# A catalog with no runs: `runs` reads a catalog named with --catalog, it does not make one.
XDG_DATA_HOME=$TMPD/qxdg "$CORUN" runs list >/dev/null || fail "runs list, a new default catalog"
expect_refused "endless query" "the query ran for more than 1 s and was stopped" \
    "$CORUN" runs --catalog "$TMPD/qxdg/corun/catalog.db" --timeout 1 query \
    "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r"
[ ! -s "$TMPD/out" ] || fail "endless query: a header over no rows: $(cat "$TMPD/out")"
[ "$rc" = 1 ] || fail "endless query: exit $rc, expected 1 (stopped while running; it was 2)"

# Defect 12: an allocator that cannot act says so instead of changing nothing silently.
"$CORUN" run "$small" --epochs 1 --allocator fair >"$TMPD/out" 2>&1 || fail "run --allocator fair"
grep -q "\[allocator\] fair decides from a predictor's NP̂ and none is active, so it keeps the partition" \
    "$TMPD/out" || fail "fair without a predictor said nothing: $(cat "$TMPD/out")"
printf 'name = "low";\ngpu = "hbm80";\nepoch_cycles = 20000;\nkernels = ( { name = "stream"; }, { name = "compute"; } );\n' \
    >"$TMPD/low.cfg"
"$CORUN" run "$TMPD/low.cfg" --epochs 1 --predictor hsm --allocator qos >"$TMPD/out" 2>&1 ||
    fail "run --allocator qos"
grep -q "\[allocator\] qos protects a high-priority kernel and the mix has none" "$TMPD/out" ||
    fail "qos without a high-priority kernel said nothing: $(cat "$TMPD/out")"
"$CORUN" run "$small" --epochs 1 --predictor hsm --allocator fair >"$TMPD/out" 2>&1 || fail "fair+hsm"
! grep -q "keeps the partition" "$TMPD/out" || fail "fair with a predictor was called idle"

# Defect 13: the catalog kept the run file's path as given, relative to where the run was.
mkdir "$TMPD/rel"
(cd "$TMPD/rel" && "$CORUN" run "$small" --epochs 1 --out r.h5 --catalog c.db >/dev/null 2>&1) ||
    fail "a run recorded with relative paths failed"
(cd / && "$CORUN" runs --catalog "$TMPD/rel/c.db" show 1) >"$TMPD/show" || fail "runs show 1"
grep -qx "  file       $TMPD/rel/r.h5" "$TMPD/show" || fail "the catalog's path: $(cat "$TMPD/show")"

# Defect 15: the project stands alone; nothing it ships points outside its tree.
for topic in dram-trace bench; do
    "$CORUN" help "$topic" >"$TMPD/help" 2>&1 || fail "help $topic"
    ! grep -q 'shared/' "$TMPD/help" || fail "help $topic points outside: $(grep shared/ "$TMPD/help")"
    grep -q 'tools/gen_dram_traces.py' "$TMPD/help" || fail "help $topic does not name the tool"
done
[ -x "$top_srcdir/tools/gen_dram_traces.py" ] || fail "tools/gen_dram_traces.py is missing"
[ -s "$top_srcdir/docs/design.md" ] || fail "docs/design.md is missing"
outside=$(cd "$top_srcdir" && grep -rln '\.\./shared' README.md corun.1 docs include src tools \
    tests/e2e/*.sh tests/unit 2>/dev/null | grep -v 'tests/e2e/hardening.sh' || true)
[ -z "$outside" ] || fail "these point at ../shared: $outside"

# Defect 17: one epoch is "1 epoch"; a command's help speaks of the program, not of its source
# files.
"$CORUN" run "$small" --epochs 1 --out "$TMPD/one.h5" --catalog "$TMPD/one.db" >"$TMPD/out" \
    2>"$TMPD/err" || fail "run --epochs 1"
grep -q ': 1 epoch of 20000 cycles' "$TMPD/out" || fail "run header: $(head -1 "$TMPD/out")"
grep -q 'recorded 1 epoch in' "$TMPD/err" || fail "run's last line: $(cat "$TMPD/err")"
"$CORUN" show "$TMPD/one.h5" | grep -q ': 1 epoch of 20000 cycles' || fail "show header"
for cmd in $("$CORUN" help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'); do
    ! "$CORUN" help "$cmd" | grep -Eq '[a-z_]+\.c\b' ||
        fail "help $cmd names a source file: $("$CORUN" help "$cmd" | grep -E '[a-z_]+\.c\b')"
done
# What corun ships is installed: every scenario and data file is named in Makefile.am (the
# accelerator example scenario was not), every accelerator example passes `corun check`,
missing=$(cd "$top_srcdir" && find scenarios data -type f -name '*.cfg' | sort |
    while read -r f; do grep -qF "$f" Makefile.am || echo "$f"; done)
[ -z "$missing" ] || fail "not in Makefile.am, so not installed: $missing"
for f in "$top_srcdir"/scenarios/accel-*.cfg; do
    "$CORUN" check "$f" >"$TMPD/out" 2>&1 || fail "check $f: $(cat "$TMPD/out")"
done
# and `make install` of those files works (three study scenarios were listed twice, which made
# install(1) refuse to overwrite what it had just installed)
if command -v make >/dev/null && [ -f "$top_builddir/Makefile" ]; then
    env -u MAKEFLAGS -u MFLAGS make -s -C "$top_builddir" install-nobase_dist_pkgdataDATA \
        DESTDIR="$TMPD/inst" >"$TMPD/install" 2>&1 || fail "make install of the data: $(cat "$TMPD/install")"
    [ "$(find "$TMPD/inst" -name 'accel-gmm-nn.cfg' | wc -l)" -eq 1 ] || fail "accel-gmm-nn.cfg not installed"
fi
# A catalog that cannot be made: sweep, which stores its results there, says so once and stops
# (it said so for each of its items, from every worker, and ran none); reproduce, which only
# caches in it, warns once and goes on.
expect_refused "sweep, a catalog that cannot be made" \
    "^corun: sweep: cannot create catalog $TMPD/none/c.db: cannot write in directory" \
    "$CORUN" sweep "$top_srcdir/tests/data/good/tiny-suite.cfg" --catalog "$TMPD/none/c.db" -j 2
[ "$(grep -c 'cannot create catalog' "$TMPD/err")" = 1 ] || fail "sweep, no catalog: $(cat "$TMPD/err")"
set +e
"$CORUN" sweep "$top_srcdir/tests/data/good/tiny-suite.cfg" --catalog "$TMPD/none/c.db" >/dev/null 2>&1
rc=$?
set -e
[ $rc = 2 ] || fail "sweep, a catalog that cannot be made: exit $rc, expected 2"
"$CORUN" reproduce hsm --accuracy --quick --shard 1/15 --epochs 1 --epoch-cycles 1000 \
    --predictors hsm --catalog "$TMPD/none/c.db" >"$TMPD/out" 2>"$TMPD/err" ||
    fail "reproduce, a catalog that cannot be made: exit $? $(cat "$TMPD/err")"
[ "$(grep -c "^corun: reproduce: warning: cannot create catalog $TMPD/none/c.db: .*; the run goes on without the catalog" \
    "$TMPD/err")" = 1 ] || fail "reproduce, a catalog that cannot be made: $(cat "$TMPD/err")"
grep -q '^ *hsm ' "$TMPD/out" || fail "reproduce without its catalog: no table: $(cat "$TMPD/out")"
# train wrote its model only at the end: a full themis training (hours) was lost to a
# mistyped --out. The place is checked first.
expect_refused "train, --out in no directory" \
    "^corun: train: cannot write the model to $TMPD/none/m.cfg: its directory does not exist \(checked before training" \
    "$CORUN" train themis --quick --out "$TMPD/none/m.cfg"
[ ! -s "$TMPD/out" ] || fail "train trained before refusing its --out: $(cat "$TMPD/out")"
expect_refused "train, --out a directory" "cannot write the model to $TMPD: it is a directory" \
    "$CORUN" train hsm --quick --out "$TMPD"
# A model renamed over a device or FIFO put a file in its place (as root, --out /dev/null
# replaced /dev/null); such a path is refused before training and left as it was.
expect_refused "train, --out a FIFO" \
    "cannot write the model to $TMPD/fifo: it is not a regular file \(a device or a FIFO\)" \
    "$CORUN" train hsm --quick --out "$TMPD/fifo"
[ -p "$TMPD/fifo" ] || fail "train --out a FIFO replaced it"
[ ! -s "$TMPD/out" ] || fail "train trained before refusing a FIFO: $(cat "$TMPD/out")"
# A symbolic link at --out became the model file, its target keeping the model said to be
# replaced (a dangling one became a file where the link was); it is refused, as run --out,
# export and plot refuse one.
printf 'mine\n' >"$TMPD/target.cfg"
ln -s "$TMPD/target.cfg" "$TMPD/live.cfg"
ln -s "$TMPD/gone.cfg" "$TMPD/dangling.cfg"
for l in live dangling; do
    expect_refused "train, --out a $l link" \
        "cannot write the model to $TMPD/$l.cfg: it is a symbolic link, which the model would replace, not follow \(checked before training" \
        "$CORUN" train hsm --quick --out "$TMPD/$l.cfg"
    [ -L "$TMPD/$l.cfg" ] && [ ! -e "$TMPD/$l.cfg.prev" ] || fail "train --out a $l link replaced it"
done
[ "$(cat "$TMPD/target.cfg")" = mine ] && [ ! -e "$TMPD/gone.cfg" ] || fail "train wrote through a link"
# A directory where the one replaced is kept (.prev) was found only once the training was
# done, and the training lost.
printf 'mine\n' >"$TMPD/kept.cfg"
mkdir "$TMPD/kept.cfg.prev"
expect_refused "train, its .prev a directory" \
    "cannot write the model to $TMPD/kept.cfg: the model it replaces is kept beside it, as its name plus .prev, and that is a directory \(checked before training" \
    "$CORUN" train hsm --quick --out "$TMPD/kept.cfg"
[ ! -s "$TMPD/out" ] || fail "train trained before refusing its .prev: $(cat "$TMPD/out")"
# The model was written first to the fixed name OUT.tmp: a user's own file of that name was
# overwritten and then renamed away as the model (and two trainings to one OUT wrote into one
# file). It goes to a name of its own beside OUT: a file named OUT.tmp is left as it was (and a
# directory of that name, refused before training, is no matter), and nothing else stays.
printf 'mine\n' >"$TMPD/new.cfg.tmp"
"$CORUN" train hsm --quick --out "$TMPD/new.cfg" >"$TMPD/out" 2>"$TMPD/err" ||
    fail "train beside a file named OUT.tmp: exit $?: $(cat "$TMPD/err")"
[ "$(cat "$TMPD/new.cfg.tmp")" = mine ] || fail "train overwrote new.cfg.tmp: $(head -3 "$TMPD/new.cfg.tmp")"
grep -q '^model = "hsm";$' "$TMPD/new.cfg" || fail "train beside new.cfg.tmp wrote no model: $(head -3 "$TMPD/new.cfg")"
[ "$(cd "$TMPD" && echo new.cfg*)" = "new.cfg new.cfg.tmp" ] ||
    fail "train left files beside its model: $(cd "$TMPD" && echo new.cfg*)"
# A training stopped by a signal ended without a word: it says that nothing is kept and the
# model file is as it was, and dies of the signal (stopped after 0.1 s of CPU, of about 1 s).
cp "$TMPD/new.cfg" "$TMPD/new.before"
"$CORUN" train hsm --quick --out "$TMPD/new.cfg" >/dev/null 2>"$TMPD/err" &
pid=$!
while ticks=$(awk '{ print $14 }' "/proc/$pid/stat" 2>/dev/null) && [ "${ticks:-0}" -lt 10 ]; do
    sleep 0.02
done
term_and_wait $pid
[ $rc = 143 ] && cmp -s "$TMPD/new.cfg" "$TMPD/new.before" &&
    grep -qxF "corun: train: stopped by SIGTERM; nothing is kept: $TMPD/new.cfg is as it was" "$TMPD/err" ||
    fail "train stopped by SIGTERM: exit $rc: $(cat "$TMPD/err")"
[ "$(cd "$TMPD" && echo new.cfg*)" = "new.cfg new.cfg.tmp" ] ||
    fail "a stopped train left files beside its model: $(cd "$TMPD" && echo new.cfg*)"
# A run file that fills its disk (here a file-size limit, which corun does not die of) keeps
# the epochs before; the run stops with exit 1, and what it says and the catalog's row count
# the epochs in the file (they counted every epoch run: one more than the file holds).
set +e
(ulimit -f 64 && exec "$CORUN" run "$small" --epochs 10 --out "$TMPD/full.h5" \
    --catalog "$TMPD/full.db") >/dev/null 2>"$TMPD/err"
rc=$?
set -e
kept=$("$CORUN" show "$TMPD/full.h5" | sed -n '1s/.*: \([0-9]*\) epochs\{0,1\} of .*/\1/p')
[ $rc = 1 ] && [ -n "$kept" ] && [ "$kept" -lt 10 ] &&
    grep -q "cannot record epoch $((kept + 1)): File too large; recording stopped, and the file keeps its first $kept epochs" "$TMPD/err" &&
    grep -q "^corun: $TMPD/full.h5 keeps $kept of the $((kept + 1)) epochs\{0,1\} run (catalog run 1)$" "$TMPD/err" ||
    fail "a full run file: exit $rc, the file holds '$kept' epochs: $(cat "$TMPD/err")"
"$CORUN" runs --catalog "$TMPD/full.db" show 1 | grep -q "^  epochs     $kept of 20000 cycles$" ||
    fail "a full run file: the catalog's row: $("$CORUN" runs --catalog "$TMPD/full.db" show 1)"
# export and plot cut short by a full disk left their files behind, empty or cut, to pass for
# a shorter run's; they remove what they wrote.
"$CORUN" run "$small" --epochs 2 --out "$TMPD/two.h5" --catalog "$TMPD/full.db" >/dev/null 2>&1 ||
    fail "run --out two.h5"
for how in "export $TMPD/two.h5 --csv $TMPD/csv-full" "plot $TMPD/two.h5 --out $TMPD/full.svg" \
    "plot $TMPD/two.h5 --out $TMPD/full.png"; do
    set +e
    (ulimit -f 1 && exec "$CORUN" $how) >/dev/null 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc != 0 ] && grep -q "cannot write" "$TMPD/err" || fail "$how, disk full: exit $rc: $(cat "$TMPD/err")"
done
# The directory it made for them goes too (it was left there, empty).
[ ! -e "$TMPD/csv-full" ] || fail "export, disk full, left: $TMPD/csv-full $(ls -A "$TMPD/csv-full")"
# One that was there stays, with what it held.
mkdir "$TMPD/csv-had" && printf 'mine\n' >"$TMPD/csv-had/notes.txt"
set +e
(ulimit -f 1 && exec "$CORUN" export "$TMPD/two.h5" --csv "$TMPD/csv-had") >/dev/null 2>&1
set -e
[ "$(ls -A "$TMPD/csv-had")" = notes.txt ] || fail "export, disk full, in a directory of the user's: $(ls -A "$TMPD/csv-had")"
[ ! -e "$TMPD/full.svg" ] && [ ! -e "$TMPD/full.png" ] || fail "plot, disk full, left its picture"
# A run stopped by SIGTERM (or SIGINT, SIGHUP) died at once: its run file kept its epochs but
# was left open (HDF5's tools refuse it until h5clear), with no catalog row and no word. It
# abandons the epoch in flight, closes the file, adds the row, keeps the references in the
# trace cache, says so, and then dies of the signal. (A background job's SIGINT is ignored by
# the shell, hence SIGTERM here.)
"$CORUN" run "$small" --set epoch_cycles=100000 --epochs 500 --out "$TMPD/term.h5" \
    --catalog "$TMPD/term.db" >"$TMPD/out" 2>"$TMPD/err" &
pid=$!
for _ in $(seq 600); do
    grep -q '^ *1  compute' "$TMPD/out" && break
    sleep 0.1
done
term_and_wait $pid
kept=$("$CORUN" show "$TMPD/term.h5" | sed -n '1s/.*: \([0-9]*\) epochs\{0,1\} of .*/\1/p')
[ $rc = 143 ] && [ -n "$kept" ] && [ "$kept" -ge 1 ] && [ "$kept" -lt 500 ] &&
    grep -Eq "^corun: stopped by SIGTERM during epoch $((kept + 1)) of 500, which is abandoned; the $kept before it (is|are) kept$" "$TMPD/err" &&
    grep -Eq "^corun: recorded $kept epochs? in $TMPD/term.h5 \(catalog run 1\)$" "$TMPD/err" ||
    fail "run stopped by SIGTERM: exit $rc, the file holds '$kept' epochs: $(cat "$TMPD/err")"
"$CORUN" runs --catalog "$TMPD/term.db" show 1 | grep -q "^  epochs     $kept of 100000 cycles$" ||
    fail "run stopped by SIGTERM: the catalog's row: $("$CORUN" runs --catalog "$TMPD/term.db" show 1 2>&1)"
# The run file says it was cut short, not only the terminal (it read like a complete run).
"$CORUN" show "$TMPD/term.h5" | grep -Eq "^event  epoch $kept  note +stopped by SIGTERM during epoch $((kept + 1)) of 500, which is abandoned" ||
    fail "run stopped by SIGTERM: no note in its file: $("$CORUN" show "$TMPD/term.h5" | grep event)"
# The references it had measured are in the trace cache for the next run, as the workbench's.
[ "$("$CORUN" runs --catalog "$TMPD/term.db" query "SELECT count(*) FROM solo_traces" | tail -1)" = 2 ] ||
    fail "run stopped by SIGTERM: its references are not in the trace cache"
# The reader of its output going away (`corun run ... | head`) killed it the same way
# (SIGPIPE): it stops as for SIGTERM, keeping the epochs before.
set +e
"$CORUN" run "$small" --set epoch_cycles=50000 --epochs 500 --out "$TMPD/pipe.h5" \
    --catalog "$TMPD/pipe.db" 2>"$TMPD/err" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
set -e
kept=$("$CORUN" show "$TMPD/pipe.h5" | sed -n '1s/.*: \([0-9]*\) epochs\{0,1\} of .*/\1/p')
[ $rc = 141 ] && [ -n "$kept" ] && [ "$kept" -lt 500 ] &&
    grep -q "^corun: stopped by SIGPIPE (its output was closed) during epoch $((kept + 1)) of 500" "$TMPD/err" &&
    [ "$("$CORUN" runs --catalog "$TMPD/pipe.db" query "SELECT epochs FROM runs" | tail -1)" = "$kept" ] ||
    fail "run | head: exit $rc, the file holds '$kept' epochs: $(cat "$TMPD/err")"
# An accelerator run file is written at the end, at once: a write that failed crashed corun
# in HDF5's exit handler (signal 11). It is refused with its reason, leaving no file.
set +e
# (34 KB: under the file's 36 KB, over the 32 KB of the catalog's shared-memory file, which
# the catalog's check before the run makes; the catalog is one made above.)
(ulimit -f 34 && exec "$CORUN" run "$top_srcdir/tests/data/good/accel-quick.cfg" \
    --out "$TMPD/accel.h5" --catalog "$TMPD/full.db") >/dev/null 2>"$TMPD/err"
rc=$?
set -e
[ $rc = 1 ] && grep -q "^corun: $TMPD/accel.h5: cannot write: File too large; nothing recorded" "$TMPD/err" ||
    fail "a full accelerator run file: exit $rc: $(cat "$TMPD/err")"
! ls "$TMPD"/accel.h5* >/dev/null 2>&1 || fail "a full accelerator run file left $(ls "$TMPD"/accel.h5*)"
# A reproduce journal on a full disk (a tmpfs of two pages, mounted in a namespace of its own
# where unshare can make one): the table is printed all the same, with its NOT KEPT line, and
# the loss is said on stderr too, where --json (which has no line for it) said nothing; a
# shard, which leaves only its journal, exits 1 (it exited 0, so a Slurm task counted as done
# had lost results).
if unshare -rm true 2>/dev/null; then
    mkdir "$TMPD/small"
    reproduce_full() { # OUT ERR ARGS...
        local out=$1 err=$2
        shift 2
        unshare -rm sh -c 'mount -t tmpfs -o size=8k tmpfs "$0" && exec "$@"' "$TMPD/small" \
            "$CORUN" reproduce hsm "$@" --quick --epochs 1 --epoch-cycles 10000 \
            --catalog "$TMPD/repro.db" --resume "$TMPD/small/j" >"$out" 2>"$err"
    }
    set +e
    reproduce_full "$TMPD/out" "$TMPD/err" --fairness --mixes 3
    rc=$?
    set -e
    lost="^corun: reproduce: a finished mix could not be put in $TMPD/small/j ($TMPD/small/j: cannot append the result of part 0, mix [0-9]*: No space left on device); a later --resume runs it again"
    [ $rc = 0 ] && grep -q "^NOT KEPT: a finished mix could not be put in $TMPD/small/j " "$TMPD/out" &&
        grep -q "$lost\$" "$TMPD/err" || fail "a full journal: exit $rc: $(cat "$TMPD/out" "$TMPD/err")"
    set +e
    # the allocation experiments and the accuracy ones (a mix's record of 72 KB: none fits)
    for x in "--fairness --mixes 6 --shard 1/2" "--accuracy --shard 1/15"; do
        set +e
        # shellcheck disable=SC2086 # the experiment's words
        reproduce_full "$TMPD/out" "$TMPD/err" $x --json
        rc=$?
        set -e
        [ $rc = 1 ] && grep -q "$lost, and this shard fails: the journal is all it leaves\$" "$TMPD/err" &&
            python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMPD/out" ||
            fail "a full journal, hsm $x --json: exit $rc: $(cat "$TMPD/out" "$TMPD/err")"
    done
    # A catalog made on a full disk, refused, was left behind empty (0 bytes); it is removed.
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare -rm sh -c 'mount -t tmpfs -o size=8k tmpfs "$0" && { head -c 8192 /dev/zero >"$0/fill"
        "$@" >/dev/null 2>"$0.err"; echo $? >"$0.rc"; ls -A "$0" >"$0.left"; }' "$TMPD/small" \
        "$CORUN" run "$small" --epochs 1 --catalog "$TMPD/small/c.db" 2>/dev/null
    [ "$(cat "$TMPD/small.rc")" = 2 ] && [ "$(cat "$TMPD/small.left")" = fill ] &&
        grep -q "catalog $TMPD/small/c.db: .*the disk is full; the run was not started" "$TMPD/small.err" ||
        fail "a catalog on a full disk: exit $(cat "$TMPD/small.rc"), left $(cat "$TMPD/small.left"): $(cat "$TMPD/small.err")"
    # A run file begun on a disk with no room left was refused, and then corun died of SIGSEGV
    # at exit (HDF5 closing again the file it could not close); it exits 2, leaving nothing.
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare -rm sh -c 'mount -t tmpfs -o size=8k tmpfs "$0" && { head -c 9000 /dev/zero >"$0/fill"
        "$@" >/dev/null 2>"$0.err"; echo $? >"$0.rc"; ls -A "$0" >"$0.left"; }' "$TMPD/small" \
        "$CORUN" run "$small" --epochs 1 --out "$TMPD/small/r.h5" --catalog "$TMPD/full-out.db" 2>/dev/null
    [ "$(cat "$TMPD/small.rc")" = 2 ] && [ "$(cat "$TMPD/small.left")" = fill ] &&
        grep -qx "corun: $TMPD/small/r.h5: cannot create: No space left on device" "$TMPD/small.err" ||
        fail "a run file on a full disk: exit $(cat "$TMPD/small.rc"), left $(cat "$TMPD/small.left"): $(cat "$TMPD/small.err")"
    # A catalog that cannot be written (the file mounted read-only over itself in that
    # namespace: SQLite opens it for reading) is said before anything is simulated: a run, a
    # branch or an accelerator run found it at the end, its run file kept, which then refused
    # the "try again" it advised.
    mkdir "$TMPD/rocat"
    "$CORUN" run "$small" --epochs 1 --out "$TMPD/ro0.h5" --catalog "$TMPD/rocat/c.db" >/dev/null ||
        fail "a run to make the catalog"
    read_only() { # CMD ARGS... with $TMPD/rocat/c.db read-only
        unshare -rm sh -c 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"' \
            "$TMPD/rocat/c.db" "$CORUN" "$@" --catalog "$TMPD/rocat/c.db" >"$TMPD/out" 2>"$TMPD/err"
    }
    for cmd in "run $small --epochs 1 --out $TMPD/ro1.h5" "branch $TMPD/ro0.h5 1 --out $TMPD/ro1.h5" \
        "run $top_srcdir/tests/data/good/accel-quick.cfg --out $TMPD/ro1.h5"; do
        set +e
        # shellcheck disable=SC2086 # the command's words
        read_only $cmd
        rc=$?
        set -e
        [ $rc = 2 ] && grep -q "^corun: catalog $TMPD/rocat/c.db is read-only: adding the .* needs write permission .*; the .* was not started\$" "$TMPD/err" &&
            [ ! -e "$TMPD/ro1.h5" ] && ! grep -q '^ *1 ' "$TMPD/out" ||
            fail "$cmd, the catalog read-only: exit $rc: $(cat "$TMPD/out" "$TMPD/err")"
    done
else
    echo "hardening: the full reproduce journal and a read-only catalog not tried: unshare -rm is not allowed here"
fi
echo "hardening: every refusal came first, with its message"
