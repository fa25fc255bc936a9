#!/usr/bin/env bash
# corun ... --slurm on a real single-node Slurm (slurmctld + slurmd + munged, configured here on
# localhost and stopped at the end): a --quick reproduction over 4 array tasks, one of them
# cancelled; `corun slurm collect` refuses to print a table while a shard is missing;
# `corun slurm resubmit` runs that shard alone; the merged table equals a local run's; a second
# collect adds nothing; a shard run by another simulator id is refused. Then a sweep over 2
# tasks with --wait, whose table equals a local sweep's. Then Prophet's scale-out study over 4
# tasks with --wait: submitted (not run here), each task simulating its own cells, the tables
# printed from the merged journal. Skips where Slurm cannot start.
. "$(dirname "$0")/../lib.sh"

for tool in munged slurmctld slurmd sbatch squeue scancel sinfo; do
    command -v "$tool" >/dev/null ||
        skip "$tool not found: install Debian's slurm-wlm and munge to run the Slurm test"
done

SL="$TMPD/slurm"
mkdir -p "$SL/state" "$SL/spool" "$SL/log"
pids=()
stop_daemons() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$TMPD"
}
trap stop_daemons EXIT

# munged and the Slurm daemons on ports of their own, all state in $SL.
head -c 1024 /dev/urandom >"$SL/munge.key"
chmod 400 "$SL/munge.key"
munged -F -f --socket="$SL/munge.sock" --key-file="$SL/munge.key" --log-file="$SL/log/munged.log" \
    --pid-file="$SL/munged.pid" --seed-file="$SL/munged.seed" 2>"$SL/log/munged.err" &
pids+=($!)
host=$(hostname -s)
user=$(id -un)
port=$((20000 + RANDOM % 20000))
cat >"$SL/slurm.conf" <<EOF
ClusterName=corun-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SL/munge.sock
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/log/slurmctld.log
SlurmdLogFile=$SL/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
SchedulerParameters=sched_interval=1
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=corun Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$SL/slurm.conf"
for _ in $(seq 1 50); do [ -S "$SL/munge.sock" ] && break; sleep 0.1; done
[ -S "$SL/munge.sock" ] || skip "munged did not start: $(cat "$SL/log/munged.err" 2>/dev/null)"
slurmctld -D -f "$SL/slurm.conf" >"$SL/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SL/slurm.conf" >"$SL/log/slurmd.out" 2>&1 &
pids+=($!)
up=
for _ in $(seq 1 100); do
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && up=1 && break
    sleep 0.3
done
[ -n "$up" ] || skip "Slurm did not start here (slurmctld: $(tail -2 "$SL/log/slurmctld.log" 2>/dev/null); slurmd: $(tail -2 "$SL/log/slurmd.log" 2>/dev/null))"

export XDG_DATA_HOME="$TMPD/xdg"
cd "$TMPD"
table() { grep -v -e ' s wall' -e '^resumed from' "$1"; }
# Wait until none of job $1's tasks is in the queue.
drained() {
    local _
    for _ in $(seq 1 600); do
        [ -z "$(squeue -h -r -j "$1" 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    fail "job $1 never left the queue: $(squeue -r)"
}

args=(smqos --quick --epochs 1)
"$CORUN" reproduce "${args[@]}" --catalog "$TMPD/local.db" >"$TMPD/local" 2>/dev/null ||
    fail "local run: exit $?"

# Submit 4 shards; cancel shard 4, which waits for one of the node's 2 CPUs.
"$CORUN" reproduce "${args[@]}" --slurm --shards 4 --slurm-dir "$TMPD/job" \
    --catalog "$TMPD/main.db" >"$TMPD/submit" 2>"$TMPD/submit.err" ||
    fail "submit: exit $? $(cat "$TMPD/submit.err")"
job=$(sed -n 's/^submitted job \([0-9]*\): 4 shards, directory .*/\1/p' "$TMPD/submit")
[ -n "$job" ] || fail "no job id: $(cat "$TMPD/submit")"
scancel "${job}_4" || fail "scancel ${job}_4"
drained "$job"
[ -f "$XDG_DATA_HOME/corun/slurm/ids/$job/job" ] || fail "job $job is not in the index"

"$CORUN" slurm status "$job" >"$TMPD/status" || fail "status: exit $?"
# Cancelled while pending it never ran; had it just started, it is stopped.
grep -Eq '^3 of 4 shards done, 1 (not run|stopped)$' "$TMPD/status" ||
    fail "status: $(cat "$TMPD/status")"
grep -Eq "^4 +(not run|stopped) +${job}_4 " "$TMPD/status" ||
    fail "status of shard 4: $(cat "$TMPD/status")"
# Its first lines: the job's directory and command, and the one submission so far.
head -1 "$TMPD/status" | grep -Fxq "job $TMPD/job: reproduce --quick --epochs 1 --catalog $TMPD/main.db smqos" ||
    fail "status, the job's line: $(cat "$TMPD/status")"
sed -n 2p "$TMPD/status" | grep -Eq "^4 shards; submitted as $job \(shards 1-4\)\$" ||
    fail "status, the submissions: $(cat "$TMPD/status")"

rc=0
"$CORUN" slurm collect "$job" >"$TMPD/partial" 2>"$TMPD/partial.err" || rc=$?
[ $rc = 1 ] || fail "collect with a shard missing: exit $rc"
[ ! -s "$TMPD/partial" ] || fail "a table with a shard missing: $(cat "$TMPD/partial")"
grep -Eq 'shard 4 is (not run|stopped)' "$TMPD/partial.err" || fail "collect: $(cat "$TMPD/partial.err")"

# Resubmitting runs shard 4 alone; the others' state files are not touched.
before=$(md5sum "$TMPD"/job/shard-[123].state)
"$CORUN" slurm resubmit "$TMPD/job" --wait >"$TMPD/merged" 2>"$TMPD/merged.err" ||
    fail "resubmit: exit $? $(cat "$TMPD/merged.err")"
grep -q '^resubmitted 1 shard (4) as job [0-9]*$' "$TMPD/merged" ||
    fail "resubmit: $(head -3 "$TMPD/merged")"
[ "$before" = "$(md5sum "$TMPD"/job/shard-[123].state)" ] || fail "resubmit reran another shard"
sed -i '1d' "$TMPD/merged"
"$CORUN" slurm status "$job" >"$TMPD/status2" || fail "status after resubmit: exit $?"
sed -n 2p "$TMPD/status2" | grep -Eq "^4 shards; submitted as $job \(shards 1-4\), [0-9]+ \(shards 4\)\$" ||
    fail "status after resubmit, the submissions: $(cat "$TMPD/status2")"
grep -q '^4 of 4 shards done$' "$TMPD/status2" || fail "status after resubmit: $(cat "$TMPD/status2")"
diff <(table "$TMPD/local") <(table "$TMPD/merged") >"$TMPD/diff" ||
    fail "the merged table differs from the local one: $(cat "$TMPD/diff")"
grep -q ': 6 of 6 mixes read from it' "$TMPD/merged" || fail "collect simulated: $(cat "$TMPD/merged")"

# Collecting again adds nothing and prints the same table.
"$CORUN" slurm collect "$job" >"$TMPD/again" 2>"$TMPD/again.err" || fail "collect again: exit $?"
grep -q '4 of 4 shards merged .*: 0 results added, 6 there already' "$TMPD/again.err" ||
    fail "collect again: $(cat "$TMPD/again.err")"
diff <(table "$TMPD/local") <(table "$TMPD/again") >/dev/null || fail "the second table differs"

# A shard whose state says another simulator ran it is refused.
cp "$TMPD/job/shard-2.state" "$TMPD/state2"
sed -i 's/^simulator .*/simulator 1/' "$TMPD/job/shard-2.state"
rc=0
"$CORUN" slurm collect "$job" >"$TMPD/other" 2>"$TMPD/other.err" || rc=$?
[ $rc = 1 ] || fail "collect of another simulator's shard: exit $rc"
grep -q 'shard 2 refused: it was run by a corun of simulator 1' "$TMPD/other.err" ||
    fail "refusal: $(cat "$TMPD/other.err")"
cp "$TMPD/state2" "$TMPD/job/shard-2.state"

# Bad input is refused before anything is submitted.
expect_bad "--shard with --slurm" "leave out --shard" \
    "$CORUN" reproduce "${args[@]}" --slurm --shard 1/2 --slurm-dir "$TMPD/bad"
expect_bad "a Slurm option alone" "go with --slurm" "$CORUN" reproduce "${args[@]}" --shards 3
expect_bad "an unknown job" "no job '999999'" "$CORUN" slurm status 999999
expect_bad "a missing suite" "missing.cfg" \
    "$CORUN" sweep "$TMPD/missing.cfg" --slurm --slurm-dir "$TMPD/bad"
expect_bad "an unknown --gpu" 'unknown GPU preset "hbm8"' \
    "$CORUN" reproduce "${args[@]}" --gpu hbm8 --slurm --slurm-dir "$TMPD/bad"
expect_bad "a bad --set" "gpu.nosuch: unknown gpu setting" \
    "$CORUN" reproduce "${args[@]}" --set gpu.nosuch=1 --slurm --slurm-dir "$TMPD/bad"
expect_bad "a bad --set, accuracy" "gpu.order_free: expected true or false" \
    "$CORUN" reproduce hsm --accuracy --quick --set gpu.order_free=2 --slurm --slurm-dir "$TMPD/bad"
expect_bad "a bad --set, sweep" "gpu.nosuch: unknown gpu setting" "$CORUN" sweep \
    "$top_srcdir/tests/data/good/tiny-suite.cfg" --set gpu.nosuch=1 --slurm --slurm-dir "$TMPD/bad"
[ ! -e "$TMPD/bad" ] || fail "a refused submission made its directory"

# A sweep over 2 tasks, waited for: the same table as a local sweep.
suite="$top_srcdir/tests/data/good/tiny-suite.cfg"
sweep=(sweep "$suite" --combos none:static,hsm:static)
"$CORUN" "${sweep[@]}" --catalog "$TMPD/sweep-local.db" >"$TMPD/sweep-local" 2>/dev/null ||
    fail "local sweep: exit $?"
"$CORUN" "${sweep[@]}" --catalog "$TMPD/sweep-main.db" --slurm --shards 2 --wait \
    >"$TMPD/sweep-slurm" 2>"$TMPD/sweep.err" || fail "sweep --slurm: exit $? $(cat "$TMPD/sweep.err")"
grep -q 'shard 1/1: 8 items, 8 already in the catalog, 0 run now' "$TMPD/sweep-slurm" ||
    fail "sweep collect: $(cat "$TMPD/sweep-slurm")"
diff <(grep '^  ' "$TMPD/sweep-local") <(grep '^  ' "$TMPD/sweep-slurm") >"$TMPD/diff" ||
    fail "the merged sweep table differs: $(cat "$TMPD/diff")"
rows=$("$CORUN" runs --catalog "$TMPD/sweep-main.db" query "SELECT count(*) FROM sweep_results" | tail -1)
[ "$rows" = 8 ] || fail "the merged catalog has $rows sweep rows, expected 8"

# Prophet's scale-out study: its 8 cells over 4 tasks (task K: the K-th two in the order LS
# application, load, batch application, so one LS application at one load). That the shards'
# cells make the same tables as one run is reproduce_prophet_scaleout.sh's check; here 2
# queries per run, a third of the quick form's cost.
"$CORUN" reproduce prophet --scaleout --quick --queries 2 --slurm --shards 4 --slurm-dir "$TMPD/pjob" \
    --wait >"$TMPD/prophet" 2>"$TMPD/prophet.err" ||
    fail "prophet --slurm: exit $? $(cat "$TMPD/prophet.err")"
grep -q '^submitted job [0-9]*: 4 shards' "$TMPD/prophet" || fail "prophet: $(head -3 "$TMPD/prophet")"
# --wait says how the shards stand, last when all are done.
grep 'shards done' "$TMPD/prophet.err" | tail -1 | grep -qx 'corun: 4 of 4 shards done, 0 running, 0 pending' ||
    fail "prophet --wait's progress: $(cat "$TMPD/prophet.err")"
grep -q '4 of 4 shards merged into .*: 8 results added, 0 there already' "$TMPD/prophet.err" ||
    fail "prophet collect: $(cat "$TMPD/prophet.err")"
for k in 1 2 3 4; do
    grep -q "^shard $k/4: 2 of the 8 cells simulated" "$TMPD/pjob/shard-$k.out" ||
        fail "prophet shard $k: $(cat "$TMPD/pjob/shard-$k.out")"
    [ "$(grep -E '^(gmm|pos) +(pf|nn) +[0-9]+%' "$TMPD/pjob/shard-$k.out" | awk '{print $1, $3}' |
        sort -u | wc -l)" = 1 ] || fail "prophet shard $k: not one LS application at one load"
done
grep -qF "(8 of the 8 cells read from $TMPD/pjob/results.journal" "$TMPD/prophet" ||
    fail "prophet table: $(cat "$TMPD/prophet")"
[ "$(grep -cE '^(gmm|pos) +(pf|nn) +[0-9]+%' "$TMPD/prophet")" = 8 ] &&
    grep -qE '^full +5\.0 ' "$TMPD/prophet" || fail "prophet tables: $(cat "$TMPD/prophet")"
expect_bad "prophet --shard with --slurm" "leave out --shard" \
    "$CORUN" reproduce prophet --scaleout --quick --slurm --shard 1/2 --slurm-dir "$TMPD/bad"
[ ! -e "$TMPD/bad" ] || fail "a refused prophet submission made its directory"
exit 0
