#!/usr/bin/env bash
# An accelerator `corun run` stopped by a signal (SIGTERM, SIGINT, SIGHUP, SIGPIPE) died at
# once: it writes its table, JSON and run file only at the end, so a stopped run left nothing
# and said nothing. It now ends at the next turn of its loop and keeps the co-located run so
# far: the table (or JSON, "complete": false) of what was answered, the run file and its
# catalog row marked part way, a line on stderr saying where it stopped; then it dies of the
# signal. Stopped during the solo runs (the QoS targets' references), before the applications
# ran together, it says there is nothing to keep. (A background job's SIGINT is ignored by
# the shell, hence SIGTERM.) A file that takes its --out name while it runs does not cost it
# the run either.
. "$(dirname "$0")/../lib.sh"

# The LS application's Poisson gaps are cheap alone and busy beside the batch one: the solo
# runs take a fraction of the run.
cat >"$TMPD/stop.cfg" <<'CFG'
mode = "accelerator"; name = "stop test"; gpu = "k40"; seed = 1;
applications = (
  { name = "gmm"; role = "ls"; qos_target = 1.5; arrival = "poisson"; rate_qps = 400;
    queries = 16; },
  { name = "bfs-ex"; role = "batch"; instances = 1; }
);
CFG
# Stops the run after $1 s; its exit status to $rc, its stderr in err, stdout in out.
stop_after() {
    rm -f "$TMPD/stop.h5"
    "$CORUN" run "$TMPD/stop.cfg" --threads 1 --json --out "$TMPD/stop.h5" \
        --catalog "$TMPD/stop.db" >"$TMPD/out" 2>"$TMPD/err" &
    local pid=$!
    sleep "$1"
    kill -TERM $pid 2>/dev/null || fail "the run ended within $1 s: $(cat "$TMPD/err")"
    set +e
    wait $pid
    rc=$?
    set -e
}
solo=0
for t in 1.5 3 6; do
    stop_after $t
    grep -q "during the solo runs" "$TMPD/err" || break
    # the solo runs' stop: nothing kept, said so, no file
    [ $rc = 143 ] && [ ! -s "$TMPD/out" ] && [ ! -e "$TMPD/stop.h5" ] &&
        grep -q "^corun: $TMPD/stop.cfg: stopped by SIGTERM during the solo runs (each LS application alone, the reference of its QoS target), before the applications ran together; nothing to keep$" "$TMPD/err" ||
        fail "stopped in the solo runs: exit $rc: $(cat "$TMPD/err")"
    solo=$((solo + 1))
done
[ $rc = 143 ] || fail "stopped: exit $rc: $(cat "$TMPD/err")"
# stderr is not a terminal: no progress bar (shown after a second), and no line ending one
[ "$(head -c 6 "$TMPD/err")" = "corun:" ] || fail "stopped: stderr begins with: $(head -2 "$TMPD/err")"
grep -Eq "^corun: $TMPD/stop.cfg: stopped by SIGTERM at [0-9.]+ ms of simulated time \([0-9]+ of 16 queries answered\); the run so far is above, and recorded$" "$TMPD/err" ||
    fail "stopped: its line: $(cat "$TMPD/err")"
grep -Eq "^corun: recorded [0-9]+ tasks and 16 queries \([0-9]+ answered\) in $TMPD/stop.h5 \(catalog run a1\)$" "$TMPD/err" ||
    fail "stopped: the recording's line: $(cat "$TMPD/err")"
python3 - "$TMPD/out" "$TMPD/err" <<'PY' || fail "stopped: the JSON: $(head -c 600 "$TMPD/out")"
import json, re, sys
d = json.load(open(sys.argv[1]))
said = re.search(r"at ([0-9.]+) ms of simulated time \(([0-9]+) of 16", open(sys.argv[2]).read())
assert d["complete"] is False, d["complete"]
gmm = d["applications"][0]
assert gmm["queries"] == int(said.group(2)) < 16 and len(gmm["latency_ms"]) == gmm["queries"], gmm
assert abs(d["simulated_ms"] - float(said.group(1))) < 1e-3, d["simulated_ms"]
assert d["solo_cycles"] > 0 and d["cycles"] > 0
PY
# The file and the catalog hold the same run, part way.
"$CORUN" show "$TMPD/stop.h5" >"$TMPD/show" || fail "show the stopped run: exit $?"
head -1 "$TMPD/show" | grep -q "^(saved part way through the run, at " ||
    fail "show the stopped run: $(head -3 "$TMPD/show")"
[ "$("$CORUN" runs --catalog "$TMPD/stop.db" query "SELECT complete FROM accel_runs" | tail -1)" = 0 ] ||
    fail "the stopped run's catalog row: $("$CORUN" runs --catalog "$TMPD/stop.db" query "SELECT * FROM accel_runs" 2>&1)"
# runs list marks it, as show does (the list showed it as a whole run).
"$CORUN" runs --catalog "$TMPD/stop.db" list >"$TMPD/list" || fail "runs list: exit $?"
grep -Eq '^ +a1 .* [0-9]+\.[0-9]{3}\* ' "$TMPD/list" && grep -q '^\* saved part way' "$TMPD/list" ||
    fail "runs list does not mark the stopped run: $(cat "$TMPD/list")"
# Stopped before any query was answered (one a thousand seconds apart): no latency to judge,
# so no verdict (it said "met", p99 0.000 ms; JSON "qos_met": true).
sed -i 's/rate_qps = 400;/rate_qps = 0.001;/; s/queries = 16;/queries = 3;/' "$TMPD/stop.cfg"
for t in 2 4 8; do
    stop_after $t
    grep -q "during the solo runs" "$TMPD/err" || break
done
grep -q "(0 of 3 queries answered)" "$TMPD/err" || fail "no query answered: $(cat "$TMPD/err")"
python3 - "$TMPD/out" <<'PY' || fail "no query answered: the JSON: $(head -c 600 "$TMPD/out")"
import json, sys
gmm = json.load(open(sys.argv[1]))["applications"][0]
assert gmm["queries"] == 0 and gmm["qos_met"] is None and gmm["p99_ms"] is None, gmm
PY
"$CORUN" runs --catalog "$TMPD/stop.db" show a2 | grep -q "no p99 (a query did not complete, or none was answered).*: not met$" ||
    fail "no query answered: runs show: $("$CORUN" runs --catalog "$TMPD/stop.db" show a2)"

# A file that takes the --out name while the run goes on (a second run with the same --out):
# the run is kept under the first free NAME-N.h5 and said, exit status 1, the other file as it
# was (the run went unrecorded at its end: "already exists ... nothing recorded"). The name is
# taken once the run has used 0.1 s of CPU: long after its start's check, before its end (0.3 s).
sed -i 's/rate_qps = 0.001;/rate_qps = 400;/; s/queries = 3;/queries = 1;/' "$TMPD/stop.cfg"
"$CORUN" run "$TMPD/stop.cfg" --threads 1 --out "$TMPD/taken.h5" --catalog "$TMPD/stop.db" \
    >/dev/null 2>"$TMPD/err" &
pid=$!
while ticks=$(awk '{ print $14 }' "/proc/$pid/stat" 2>/dev/null) && [ "${ticks:-0}" -lt 10 ]; do
    sleep 0.02
done
[ ! -e "$TMPD/taken.h5" ] || fail "the run ended before its name was taken: lengthen it"
echo "another file" >"$TMPD/taken.h5"
rc=0
wait $pid || rc=$?
[ $rc = 1 ] && [ "$(cat "$TMPD/taken.h5")" = "another file" ] &&
    grep -qxF "corun: $TMPD/taken.h5: appeared while the run went on, and a run file is never overwritten; the run is recorded in $TMPD/taken-2.h5 instead" "$TMPD/err" &&
    grep -Eq "^corun: recorded [0-9]+ tasks and 1 queries in $TMPD/taken-2.h5 \(catalog run a3\)$" "$TMPD/err" ||
    fail "a name taken during the run: exit $rc: $(cat "$TMPD/err")"
"$CORUN" show "$TMPD/taken-2.h5" >/dev/null || fail "the run kept beside a taken name does not show"
echo "stopped after $t s ($solo stop(s) in the solo runs before); a name taken meanwhile kept the run beside it"
