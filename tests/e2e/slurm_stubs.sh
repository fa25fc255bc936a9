#!/usr/bin/env bash
# corun's Slurm commands against stand-ins for sbatch, squeue and sacct (so they run where
# Slurm does not; slurm.sh runs a real one): what corun does when squeue fails. `slurm status`
# calls the unfinished shards unknown and exits 1; `slurm resubmit` refuses and touches nothing
# (it used to rerun shards that were queued, two tasks writing one shard's database);
# `slurm collect` says what it knows of a shard not run; `--wait` looks again after a failed
# look and gives up after 20 failures in a row without advising a resubmit (it used to take a
# failed look for an empty queue). And a sweep gets no more shards than it has items. A shard
# that finished without a catalog it can be merged from is lost: collect, status and resubmit
# say so. What the command refuses without --slurm is refused before submitting. A
# reproduction gets no more shards than it has mixes. A submission or resubmission stopped by
# SIGTERM while sbatch runs records the job sbatch submitted before corun dies.
. "$(dirname "$0")/../lib.sh"

export XDG_DATA_HOME="$TMPD/xdg" CORUN_DATADIR="$top_srcdir"
STUB="$TMPD/stub"
mkdir -p "$STUB/bin"
# CORUN_SLURM_POLL_MS: looks 10 ms apart at first, not 250 (20 failed looks cost 3 s, not 80).
export STUB PATH="$STUB/bin:$PATH" CORUN_SLURM_POLL_MS=10

# sbatch: logs its arguments, puts the array's tasks in $STUB/queue ("JOB K STATE SCRIPT OUT")
# and prints the job id as --parsable does. While $STUB/sbatch-hold exists it first makes
# $STUB/sbatch-held and waits until the hold is gone (a slow submission, to stop corun during).
cat >"$STUB/bin/sbatch" <<'EOF'
#!/usr/bin/env bash
if [ -e "$STUB/sbatch-hold" ]; then
    : >"$STUB/sbatch-held"
    while [ -e "$STUB/sbatch-hold" ]; do sleep 0.02; done
fi
id=$(cat "$STUB/next-id" 2>/dev/null || echo 100)
echo $((id + 1)) >"$STUB/next-id"
echo "$*" >>"$STUB/sbatch.log"
for a; do
    case $a in --array=*) spec=${a#--array=} ;; --output=*) out=${a#--output=} ;; esac
    script=$a
done
for part in ${spec//,/ }; do
    for k in $(seq "${part%-*}" "${part#*-}"); do
        echo "$id $k PENDING $script ${out//%a/$k}" >>"$STUB/queue"
    done
done
echo "$id;stub"
EOF
# squeue: fails while $STUB/squeue-fails holds "always" or a count above 0 (counted down), as
# an overloaded slurmctld makes it; else, when $STUB/run-tasks exists, runs the queued tasks
# as Slurm would (then they are gone from the queue); then prints the queue.
cat >"$STUB/bin/squeue" <<'EOF'
#!/usr/bin/env bash
echo x >>"$STUB/squeue.calls"
fails=$(cat "$STUB/squeue-fails" 2>/dev/null || echo 0)
if [ "$fails" = always ] || [ "$fails" -gt 0 ]; then
    [ "$fails" = always ] || echo $((fails - 1)) >"$STUB/squeue-fails"
    echo "slurm_load_jobs error: Socket timed out on send/recv operation" >&2
    exit 1
fi
if [ -e "$STUB/run-tasks" ] && [ -s "$STUB/queue" ]; then
    while read -r id k _ script out; do
        SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$k "$script" >"$out" 2>&1 </dev/null || true
    done <"$STUB/queue"
    : >"$STUB/queue"
fi
[ ! -f "$STUB/queue" ] || awk '{ print $1, $2, $3 }' "$STUB/queue"
EOF
# sacct: a cluster without accounting.
printf '#!/bin/sh\nexit 0\n' >"$STUB/bin/sacct"
chmod +x "$STUB/bin/"*

cd "$TMPD"
suite="$top_srcdir/tests/data/good/tiny-suite.cfg"
sweep=(sweep "$suite" --combos none:static --catalog "$TMPD/main.db")

# A job of 2 shards: shard 1 runs and finishes, shard 2 starts and is running.
"$CORUN" "${sweep[@]}" --slurm --shards 2 --slurm-dir "$TMPD/job" >"$TMPD/submit" 2>&1 ||
    fail "submit: exit $? $(cat "$TMPD/submit")"
grep -q '^submitted job 100: 2 shards' "$TMPD/submit" || fail "submit: $(cat "$TMPD/submit")"
SLURM_ARRAY_JOB_ID=100 SLURM_ARRAY_TASK_ID=1 "$TMPD/job/task.sh" >"$TMPD/job/shard-1.out" 2>&1 ||
    fail "task 1: $(cat "$TMPD/job/shard-1.out")"
sed -i '/^100 1 /d; s/^100 2 PENDING/100 2 RUNNING/' "$STUB/queue"
sed 's/^finished .*/started 2026-12-01T00:00:00Z/; s/^task .*/task 100_2/' \
    "$TMPD/job/shard-1.state" >"$TMPD/job/shard-2.state"
"$CORUN" slurm status 100 >"$TMPD/status" || fail "status: exit $?"
grep -q '^1 of 2 shards done, 1 running$' "$TMPD/status" || fail "status: $(cat "$TMPD/status")"
# A copy of the job directory is refused: its manifest and task script name the original's
# journal, Slurm jobs and directory, so it would run and merge the original's shards.
cp -r "$TMPD/job" "$TMPD/jobcopy"
for cmd in status resubmit collect; do
    expect_bad "slurm $cmd of a copied job directory" "jobcopy/job: this job was made in $TMPD/job, whose journal" \
        "$CORUN" slurm "$cmd" "$TMPD/jobcopy"
done

# squeue fails: shard 2's state is unknown, not stopped, and status says so with exit 1.
echo always >"$STUB/squeue-fails"
rc=0
"$CORUN" slurm status 100 >"$TMPD/status" 2>"$TMPD/status.err" || rc=$?
[ $rc = 1 ] || fail "status, squeue failing: exit $rc $(cat "$TMPD/status" "$TMPD/status.err")"
grep -Eq '^2 +unknown \(squeue failed\) +100_2 +started on .*, not finished$' "$TMPD/status" &&
    grep -q '^1 of 2 shards done, 1 unknown (squeue failed)$' "$TMPD/status" ||
    fail "status, squeue failing: $(cat "$TMPD/status")"
grep -q 'squeue failed (exit status 1: slurm_load_jobs error: Socket timed out on send/recv operation), so whether the 1 unfinished shard is pending, running or gone is unknown' \
    "$TMPD/status.err" || fail "status, squeue failing, stderr: $(cat "$TMPD/status.err")"

# resubmit refuses: nothing submitted, no file removed, the manifest as it was.
before=$(md5sum "$TMPD/job/job" "$TMPD"/job/shard-*)
rc=0
"$CORUN" slurm resubmit 100 >"$TMPD/resubmit" 2>"$TMPD/resubmit.err" || rc=$?
[ $rc = 1 ] || fail "resubmit, squeue failing: exit $rc $(cat "$TMPD/resubmit" "$TMPD/resubmit.err")"
grep -q 'slurm resubmit: squeue failed (exit status 1: slurm_load_jobs error: Socket timed out.*nothing was resubmitted or removed: run `corun slurm resubmit .*` again when squeue answers' \
    "$TMPD/resubmit.err" || fail "resubmit, squeue failing: $(cat "$TMPD/resubmit.err")"
[ "$(wc -l <"$STUB/sbatch.log")" = 1 ] || fail "resubmit called sbatch: $(cat "$STUB/sbatch.log")"
[ "$before" = "$(md5sum "$TMPD/job/job" "$TMPD"/job/shard-*)" ] ||
    fail "resubmit with squeue failing changed the job directory: $(ls -l "$TMPD/job")"

# collect merges shard 1 and says shard 2 may still run, not that it should be resubmitted.
rc=0
"$CORUN" slurm collect 100 >"$TMPD/collect" 2>"$TMPD/collect.err" || rc=$?
[ $rc = 1 ] && [ ! -s "$TMPD/collect" ] || fail "collect, squeue failing: exit $rc $(cat "$TMPD/collect")"
grep -q '1 of 2 shards merged' "$TMPD/collect.err" &&
    grep -q '^corun: shard 2 is unknown (squeue failed): started on .*, not finished$' "$TMPD/collect.err" &&
    grep -q 'may still be pending or running: collect again when squeue answers$' "$TMPD/collect.err" ||
    fail "collect, squeue failing: $(cat "$TMPD/collect.err")"
grep -q resubmit "$TMPD/collect.err" && fail "collect, squeue failing, advises a resubmit: $(cat "$TMPD/collect.err")"

# squeue answers; shard 2 is gone from the queue without a trace: collect names what it knows
# (it printed "shard 2 is not run ()").
rm "$STUB/squeue-fails" "$TMPD/job/shard-2.state"
: >"$STUB/queue"
rc=0
"$CORUN" slurm collect 100 >"$TMPD/collect" 2>"$TMPD/collect.err" || rc=$?
[ $rc = 1 ] && grep -q '^corun: shard 2 is not run: never started, not in the queue$' "$TMPD/collect.err" ||
    fail "collect, shard 2 not run: exit $rc $(cat "$TMPD/collect.err")"
grep -qF '()' "$TMPD/collect.err" && fail "collect: empty parentheses: $(cat "$TMPD/collect.err")"
"$CORUN" slurm status 100 >"$TMPD/status" || fail "status, shard 2 not run: exit $?"
grep -Eq '^2 +not run +100_2 +never started, not in the queue$' "$TMPD/status" ||
    fail "status, shard 2 not run: $(cat "$TMPD/status")"

# --wait: two failed looks at the queue are said once and looked past; the tasks run at the
# third look, and the table is printed (the first failure was taken for an empty queue, and
# the shards not run for ones to resubmit).
touch "$STUB/run-tasks"
echo 2 >"$STUB/squeue-fails"
"$CORUN" "${sweep[@]}" --slurm --shards 2 --wait >"$TMPD/wait" 2>"$TMPD/wait.err" ||
    fail "--wait, squeue failing twice: exit $? $(cat "$TMPD/wait.err")"
[ "$(grep -c 'squeue failed' "$TMPD/wait.err")" = 1 ] &&
    grep -q '^corun: squeue failed (exit status 1: slurm_load_jobs error: Socket timed out on send/recv operation); looking again in 0.01 s, and stopping after 20 failures in a row$' "$TMPD/wait.err" &&
    grep -q '^corun: squeue answers again, after 2 failures$' "$TMPD/wait.err" &&
    grep -q '2 of 2 shards merged' "$TMPD/wait.err" || fail "--wait, squeue failing twice: $(cat "$TMPD/wait.err")"
grep -q "^$suite, shard 1/1: 4 items, 4 already in the catalog, 0 run now" "$TMPD/wait" ||
    fail "--wait, squeue failing twice, the table: $(cat "$TMPD/wait")"

# --wait while squeue keeps failing: it gives up after 20 looks, exit 1, without collecting or
# advising a resubmit (the shards may be running).
echo always >"$STUB/squeue-fails"
rm "$STUB/run-tasks"
: >"$STUB/squeue.calls"
rc=0
"$CORUN" "${sweep[@]}" --slurm --shards 2 --slurm-dir "$TMPD/job3" --wait >"$TMPD/wait" \
    2>"$TMPD/wait.err" || rc=$?
[ $rc = 1 ] || fail "--wait, squeue failing: exit $rc $(cat "$TMPD/wait.err")"
[ "$(wc -l <"$STUB/squeue.calls")" = 20 ] ||
    fail "--wait, squeue failing: $(wc -l <"$STUB/squeue.calls") looks, expected 20"
[ "$(grep -c 'looking again' "$TMPD/wait.err")" = 1 ] &&
    grep -q "^corun: squeue failed 20 times in a row (the last: squeue failed (exit status 1: slurm_load_jobs error: Socket timed out on send/recv operation)), so corun stops waiting; the shards may still be pending or running: follow them with \`corun slurm status $TMPD/job3\` and merge them with \`corun slurm collect $TMPD/job3\` once squeue answers$" "$TMPD/wait.err" ||
    fail "--wait, squeue failing: $(cat "$TMPD/wait.err")"
grep -q -e resubmit -e 'shards done' -e merged "$TMPD/wait.err" &&
    fail "--wait, squeue failing, collected: $(cat "$TMPD/wait.err")"
[ -e "$TMPD/job3/shard-1.state" ] && fail "--wait, squeue failing: a task ran"

rm "$STUB/squeue-fails"

# --wait stopped while its shards are pending: corun dies of the signal, having said that the
# job goes on and how to follow and merge it (it died without a word until 2026-12-07).
"$CORUN" "${sweep[@]}" --slurm --shards 2 --slurm-dir "$TMPD/jobW" --wait >/dev/null \
    2>"$TMPD/waitW.err" &
pid=$!
for _ in $(seq 300); do grep -q 'shards done' "$TMPD/waitW.err" && break; sleep 0.1; done
term_and_wait "$pid"
[ $rc = 143 ] || fail "--wait stopped: exit $rc $(cat "$TMPD/waitW.err")"
grep -q "^corun: sweep: stopped by SIGTERM; the job goes on in Slurm: follow it with \`corun slurm status\` and merge it with \`corun slurm collect\`, each given its directory, $TMPD/jobW\$" \
    "$TMPD/waitW.err" && [ -s "$TMPD/jobW/job" ] || fail "--wait stopped: $(cat "$TMPD/waitW.err")"

# A sweep of 4 items gets 4 shards, not 6 of which 2 would run nothing.
"$CORUN" "${sweep[@]}" --slurm --shards 6 --slurm-dir "$TMPD/job4" >"$TMPD/submit" \
    2>"$TMPD/submit.err" || fail "--shards 6: exit $? $(cat "$TMPD/submit.err")"
grep -q "^corun: sweep: $suite has 4 items (4 mixes x 1 combination), so 4 shards, not 6$" \
    "$TMPD/submit.err" || fail "--shards 6: $(cat "$TMPD/submit.err")"
grep -q '^submitted job [0-9]*: 4 shards' "$TMPD/submit" && grep -q '^shards 4$' "$TMPD/job4/job" &&
    tail -1 "$STUB/sbatch.log" | grep -q -- '--array=1-4 ' || fail "--shards 6: $(cat "$TMPD/submit")"
# As many shards as items, or fewer: no note.
"$CORUN" sweep "$suite" --combos none:static,hsm:static --slurm --shards 8 \
    --slurm-dir "$TMPD/job5" >/dev/null 2>"$TMPD/submit.err" || fail "--shards 8: exit $?"
grep -q 'items' "$TMPD/submit.err" && fail "--shards 8 of 8 items: $(cat "$TMPD/submit.err")"

# --cpus-per-task without -j or --threads: each task would use one of its CPUs; a note says so.
"$CORUN" "${sweep[@]}" --slurm --shards 1 --cpus-per-task 4 --slurm-dir "$TMPD/job6" \
    >/dev/null 2>"$TMPD/submit.err" || fail "--cpus-per-task 4: exit $?"
grep -q '^corun: note: --cpus-per-task 4 gives each task 4 CPUs, but without -j N' \
    "$TMPD/submit.err" || fail "--cpus-per-task without -j: $(cat "$TMPD/submit.err")"
"$CORUN" "${sweep[@]}" -j 4 --slurm --shards 1 --cpus-per-task 4 --slurm-dir "$TMPD/job7" \
    >/dev/null 2>"$TMPD/submit.err" || fail "--cpus-per-task 4 -j 4: exit $?"
grep -q 'cpus-per-task' "$TMPD/submit.err" && fail "-j 4: $(cat "$TMPD/submit.err")"
# A shard that finished but whose catalog is gone or is no catalog is lost: collect names it and
# exits 1 without a table (it merged the others, then simulated the missing mixes here, exit
# 0), status says so, and resubmit runs it again (it said every shard was done).
: >"$STUB/queue"
touch "$STUB/run-tasks"
lost=(sweep "$suite" --combos none:static,hsm:fair --catalog "$TMPD/lost.db")
"$CORUN" "${lost[@]}" --slurm --shards 3 --slurm-dir "$TMPD/jobL" >"$TMPD/submit" 2>&1 ||
    fail "lost: submit: exit $? $(cat "$TMPD/submit")"
id=$(sed -n 's/^submitted job \([0-9]*\):.*/\1/p' "$TMPD/submit")
"$CORUN" slurm status "$id" >/dev/null || fail "lost: status: exit $?" # runs the tasks
rm "$TMPD/jobL/shard-2.db"*
rc=0
"$CORUN" slurm collect "$id" >"$TMPD/collect" 2>"$TMPD/collect.err" || rc=$?
[ $rc = 1 ] && [ ! -s "$TMPD/collect" ] || fail "lost: collect: exit $rc $(cat "$TMPD/collect")"
grep -q '2 of 3 shards merged' "$TMPD/collect.err" &&
    grep -q '^corun: shard 2 is lost (results unusable): finished, but shard-2.db is missing$' \
        "$TMPD/collect.err" || fail "lost: collect: $(cat "$TMPD/collect.err")"
"$CORUN" slurm status "$id" >"$TMPD/status" || fail "lost: status: exit $?"
grep -q '^2 of 3 shards done, 1 lost (results unusable)$' "$TMPD/status" ||
    fail "lost: status: $(cat "$TMPD/status")"
"$CORUN" slurm resubmit "$id" >"$TMPD/resubmit" 2>&1 || fail "lost: resubmit: exit $?"
grep -q '^resubmitted 1 shard (2) as job' "$TMPD/resubmit" || fail "lost: $(cat "$TMPD/resubmit")"
# Run again, then its catalog replaced by bytes that are no catalog.
"$CORUN" slurm status "$id" >/dev/null || fail "lost: status: exit $?"
rm "$TMPD/jobL/shard-2.db"*
head -c 8192 /dev/urandom >"$TMPD/jobL/shard-2.db"
rc=0
"$CORUN" slurm collect "$id" >"$TMPD/collect" 2>"$TMPD/collect.err" || rc=$?
[ $rc = 1 ] && [ ! -s "$TMPD/collect" ] || fail "garbage: collect: exit $rc $(cat "$TMPD/collect")"
grep -q "^corun: shard 2: $TMPD/jobL/shard-2.db is not a corun catalog (not an SQLite database); \`corun slurm resubmit $TMPD/jobL\` runs it again$" \
    "$TMPD/collect.err" &&
    grep -q '^corun: shard 2 is lost (results unusable): finished, but collect could not merge its results$' \
        "$TMPD/collect.err" || fail "garbage: collect: $(cat "$TMPD/collect.err")"
"$CORUN" slurm resubmit "$id" >"$TMPD/resubmit" 2>&1 || fail "garbage: resubmit: exit $?"
grep -q '^resubmitted 1 shard (2) as job' "$TMPD/resubmit" || fail "garbage: $(cat "$TMPD/resubmit")"
"$CORUN" slurm status "$id" >/dev/null || fail "garbage: status: exit $?"
"$CORUN" slurm collect "$id" >"$TMPD/collect" 2>"$TMPD/collect.err" ||
    fail "garbage, run again: collect: exit $? $(cat "$TMPD/collect.err")"
grep -q "^$suite, shard 1/1: 8 items, 8 already in the catalog, 0 run now" "$TMPD/collect" ||
    fail "garbage, run again: $(cat "$TMPD/collect")"
rm "$STUB/run-tasks"
# What the command would refuse without --slurm is refused before anything is submitted, with
# the same message and exit status 2 (it was submitted, and every task failed): a catalog that
# is no catalog or cannot be made, a --resume file that is no journal or one of another run.
head -c 8192 /dev/urandom >"$TMPD/garbage.db"
echo "my notes" >"$TMPD/notes.txt"
"$CORUN" reproduce hsm --accuracy --quick --epochs 2 --resume "$TMPD/e2.journal" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [ -s "$TMPD/e2.journal" ] && break; sleep 0.1; done
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[ -s "$TMPD/e2.journal" ] || fail "no journal of --epochs 2 was made"
before=$(wc -l <"$STUB/sbatch.log")
refused() { # the message, then the command without --slurm
    local want=$1 rc=0
    shift
    "$CORUN" "$@" --slurm --slurm-dir "$TMPD/refused" >"$TMPD/out" 2>"$TMPD/err" || rc=$?
    [ $rc = 2 ] && grep -qF "$want" "$TMPD/err" || fail "$* --slurm: exit $rc $(cat "$TMPD/out" "$TMPD/err")"
    [ "$(wc -l <"$STUB/sbatch.log")" = "$before" ] || fail "$* --slurm: submitted"
    [ ! -e "$TMPD/refused/job" ] || fail "$* --slurm: a job directory was made"
}
refused "corun: sweep: $TMPD/garbage.db is not a corun catalog (not an SQLite database)" \
    sweep "$suite" --catalog "$TMPD/garbage.db"
refused "corun: sweep: cannot create catalog $TMPD/nodir/x.db: cannot write in directory $TMPD/nodir" \
    sweep "$suite" --catalog "$TMPD/nodir/x.db"
refused "corun: reproduce: $TMPD/notes.txt: not a corun reproduce journal (its first line is 'my notes'" \
    reproduce hsm --accuracy --quick --resume "$TMPD/notes.txt"
refused "corun: reproduce: $TMPD/e2.journal: written for another run (it holds: epochs 2; this run: epochs 1)" \
    reproduce hsm --accuracy --quick --epochs 1 --resume "$TMPD/e2.journal"
refused "corun: reproduce: $TMPD/notes.txt: not a corun reproduce journal" \
    reproduce hsm --fairness --quick --resume "$TMPD/notes.txt"
refused "corun: reproduce prophet: $TMPD/nodir/p.journal: cannot open for reading and writing" \
    reproduce prophet --accuracy --quick --resume "$TMPD/nodir/p.journal"
refused "corun: reproduce prophet: $TMPD/e2.journal: written for another run" \
    reproduce prophet --accuracy --quick --resume "$TMPD/e2.journal"
refused "corun: reproduce prophet: $TMPD/notes.txt: not a corun reproduce journal" \
    reproduce prophet --scaleout --quick --resume "$TMPD/notes.txt"
# A catalog that is not there yet is not made by a submission (the tasks' results make it).
"$CORUN" sweep "$suite" --catalog "$TMPD/new.db" --slurm --slurm-dir "$TMPD/jobN" >/dev/null 2>&1 ||
    fail "new catalog: exit $?"
[ ! -e "$TMPD/new.db" ] || fail "submitting made the catalog"
# collect while a shard is only pending: no advice to resubmit (resubmit would find nothing to
# run), but to collect again when it has finished.
: >"$STUB/queue"
"$CORUN" "${sweep[@]}" --slurm --shards 2 --slurm-dir "$TMPD/jobP" >"$TMPD/submit" 2>&1 ||
    fail "pending: submit: exit $?"
id=$(sed -n 's/^submitted job \([0-9]*\):.*/\1/p' "$TMPD/submit")
SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=1 "$TMPD/jobP/task.sh" >/dev/null 2>&1 || fail "pending: task 1"
sed -i "/^$id 1 /d" "$STUB/queue"
rc=0
"$CORUN" slurm collect "$id" >/dev/null 2>"$TMPD/collect.err" || rc=$?
[ $rc = 1 ] && grep -q '^corun: shard 2 is pending: PENDING$' "$TMPD/collect.err" &&
    grep -q '^corun: no table until every shard is merged; the others are pending or running: collect again when they have finished$' \
        "$TMPD/collect.err" || fail "pending: collect: exit $rc $(cat "$TMPD/collect.err")"
grep -q resubmit "$TMPD/collect.err" && fail "pending: collect advises a resubmit: $(cat "$TMPD/collect.err")"
# SIGTERM to corun while sbatch submits: sbatch goes on and submits the job, and corun, which
# died at once, never wrote its id into the job directory, so `slurm status` called its queued
# shards not run and `slurm resubmit` would queue them twice. corun now waits for sbatch,
# records the job, says so, and then dies of the signal.
# Runs CMD... with the stub sbatch held, stops it by SIGTERM there, then lets sbatch go on;
# its output in $TMPD/submit, its exit status in rc.
stopped_while_submitting() { # CMD...
    : >"$STUB/sbatch-hold"
    "$@" >"$TMPD/submit" 2>&1 &
    pid=$!
    while [ ! -e "$STUB/sbatch-held" ]; do
        kill -0 $pid 2>/dev/null || fail "stopped while submitting: no sbatch: $(cat "$TMPD/submit")"
        sleep 0.02
    done
    kill -TERM $pid
    rm "$STUB/sbatch-hold" "$STUB/sbatch-held"
    rc=0
    wait $pid || rc=$?
}
stopped_while_submitting "$CORUN" "${sweep[@]}" --slurm --shards 2 --slurm-dir "$TMPD/jobT"
id=$(sed -n 's/^submitted job \([0-9]*\):.*/\1/p' "$TMPD/submit")
[ $rc = 143 ] && [ -n "$id" ] &&
    grep -qxF "corun: stopped by SIGTERM while submitting; job $id was submitted first and is recorded in $TMPD/jobT" "$TMPD/submit" ||
    fail "stopped while submitting: exit $rc: $(cat "$TMPD/submit")"
"$CORUN" slurm status "$TMPD/jobT" >"$TMPD/status" || fail "stopped while submitting: status: exit $?"
grep -q '^0 of 2 shards done, 2 pending$' "$TMPD/status" ||
    fail "stopped while submitting: status: $(cat "$TMPD/status")"
# The same for `slurm resubmit` (the job's shards gone from the queue, not run).
sed -i "/^$id /d" "$STUB/queue"
stopped_while_submitting "$CORUN" slurm resubmit "$TMPD/jobT"
id=$(sed -n 's/^resubmitted 2 shards (1-2) as job \([0-9]*\)$/\1/p' "$TMPD/submit")
[ $rc = 143 ] && [ -n "$id" ] &&
    grep -qxF "corun: stopped by SIGTERM while resubmitting; job $id was submitted first and is recorded in $TMPD/jobT" "$TMPD/submit" &&
    "$CORUN" slurm status "$TMPD/jobT" | grep -q '^0 of 2 shards done, 2 pending$' ||
    fail "stopped while resubmitting: exit $rc: $(cat "$TMPD/submit")"
# A reproduction gets no more shards than it has mixes: hsm --accuracy --quick has 15, so 15
# tasks, not 20 of which 5 would run nothing.
"$CORUN" reproduce hsm --accuracy --quick --slurm --shards 20 --slurm-dir "$TMPD/jobR" \
    >"$TMPD/submit" 2>"$TMPD/submit.err" || fail "reproduce --shards 20: exit $?"
grep -q '^corun: reproduce: hsm has 15 mixes, so 15 shards, not 20$' "$TMPD/submit.err" &&
    grep -q '^shards 15$' "$TMPD/jobR/job" && tail -1 "$STUB/sbatch.log" | grep -q -- '--array=1-15 ' ||
    fail "reproduce --shards 20: $(cat "$TMPD/submit" "$TMPD/submit.err")"
# So do Prophet's experiments, by pairs or cells (--colocation --quick has one pair).
"$CORUN" reproduce prophet --colocation --quick --slurm --shards 40 --slurm-dir "$TMPD/jobC" \
    >"$TMPD/submit" 2>"$TMPD/submit.err" || fail "prophet --shards 40: exit $?"
grep -q '^corun: reproduce: prophet --colocation --quick has 1 pair, so 1 shard, not 40$' \
    "$TMPD/submit.err" && grep -q "^shards 1$" "$TMPD/jobC/job" ||
    fail "prophet --shards 40: $(cat "$TMPD/submit" "$TMPD/submit.err")"
exit 0
