#!/usr/bin/env bash
# Accelerator scenarios at the command line: `check` validates one with library profiles;
# `run` runs it (per-application latency percentiles, solo latency, QoS verdict, utilization,
# tasks done; --json; the same numbers twice; --seed moves the Poisson arrivals); --out
# writes the run file and `show` prints the same from it, refusing a truncated copy; `export`
# writes it as CSV files (a row per task, query and application); the run goes into the
# catalog (`runs list` and `runs show aN`); what
# `check` refuses `run` refuses with the same message and exit status; `tui` without a terminal
# says so; `help accelerator` lists the scenario, application and task
# settings.
. "$(dirname "$0")/../lib.sh"

cat >"$TMPD/pair.cfg" <<'CFG'
mode = "accelerator";
name = "gmm beside lavaMD";
gpu = "k40";
applications = (
  { name = "gmm"; role = "ls"; qos_target = 1.5; arrival = "poisson"; rate_qps = 500; },
  { name = "md"; role = "batch"; instances = 2; }
);
CFG
out=$("$CORUN" check "$TMPD/pair.cfg") || fail "check pair.cfg"
[ "$out" = ok ] || fail "check printed '$out'"

cp "$top_srcdir/tests/data/good/accel-quick.cfg" "$TMPD/quick.cfg"
[ "$("$CORUN" check "$TMPD/quick.cfg")" = ok ] || fail "check quick.cfg"
"$CORUN" run "$TMPD/quick.cfg" >"$TMPD/run1" 2>"$TMPD/err" || fail "run: $(cat "$TMPD/err")"
grep -qE '^gmm +ls +1 +6 +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\.50x +(met|violated) \([0-9.]+x solo\)$' \
    "$TMPD/run1" || fail "run: no LS row: $(cat "$TMPD/run1")"
grep -qE '^nn +batch +1 +passes [1-9][0-9]*$' "$TMPD/run1" || fail "run: no batch row"
grep -qE '^GPU utilization [0-9.]+ % of SM time busy; .* [1-9][0-9]* tasks done$' "$TMPD/run1" \
    || fail "run: no utilization line"
"$CORUN" run "$TMPD/quick.cfg" >"$TMPD/run2" 2>/dev/null || fail "second run"
cmp -s "$TMPD/run1" "$TMPD/run2" || fail "two runs of the same scenario differ"
"$CORUN" run "$TMPD/quick.cfg" --seed 4 >"$TMPD/run3" 2>/dev/null || fail "run --seed 4"
! cmp -s "$TMPD/run1" "$TMPD/run3" || fail "--seed 4 changed nothing"
"$CORUN" run "$TMPD/quick.cfg" --json >"$TMPD/json" 2>/dev/null || fail "run --json"
for key in '"mode": "accelerator"' '"p99_ms": ' '"solo_p99_ms": ' '"qos_met": ' \
    '"gpu_utilization": ' '"tasks_done": ' '"passes": ' '"latency_ms": ['; do
    grep -qF "$key" "$TMPD/json" || fail "run --json lacks $key"
done
p99=$(sed -n 's/.*"name": "gmm".*"p99_ms": \([0-9.e+-]*\),.*/\1/p' "$TMPD/json")
grep -qE "^gmm .* $(printf '%.3f' "$p99") " "$TMPD/run1" || fail "json p99 $p99 is not the table's"

# Predicted beside measured: the measured part is the run without a predictor.
"$CORUN" run "$TMPD/quick.cfg" --predictor prophet >"$TMPD/pred" 2>/dev/null || fail "--predictor"
grep -qF "predicted by prophet from solo-run profiles" "$TMPD/pred" || fail "no prediction"
grep -qE '^gmm +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% +(met|violated)$' "$TMPD/pred" \
    || fail "no predicted row: $(cat "$TMPD/pred")"
grep -vF -f "$TMPD/run1" "$TMPD/pred" | grep -q "^gmm .*x solo" && fail "measured row changed"
"$CORUN" run "$TMPD/quick.cfg" --predictor sequential --json >"$TMPD/pjson" 2>/dev/null \
    || fail "--predictor sequential --json"
grep -qF '"predicted": {"predictor": "sequential", "p50_ms": ' "$TMPD/pjson" \
    || fail "json without the prediction"
set +e
"$CORUN" run "$TMPD/quick.cfg" --predictor hsm >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "--predictor hsm on an accelerator scenario: exit $rc, expected 2"
grep -qF "an accelerator scenario takes none, prophet, sequential, bubble, prophet-even" "$TMPD/err" || fail "--predictor hsm: $(cat "$TMPD/err")"

set +e
"$CORUN" run "$TMPD/quick.cfg" --epochs 3 >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "run --epochs on an accelerator scenario: exit status $rc, expected 2"
grep -qF "takes only --predictor, --seed, --out, --catalog, --threads, --no-shortcuts and --json" "$TMPD/err" \
    || fail "run --epochs: $(cat "$TMPD/err")"

# The run file: show prints what run printed, from the file (table and JSON), without
# simulating; the file holds the task table; an existing file is never replaced; a truncated
# copy is refused with exit status 2.
"$CORUN" run "$TMPD/quick.cfg" --predictor sequential --out "$TMPD/q.h5" --catalog "$TMPD/cat.db" \
    >"$TMPD/rq" 2>"$TMPD/err" || fail "run --out: $(cat "$TMPD/err")"
grep -qE "^corun: recorded [1-9][0-9]* tasks and 6 queries in $TMPD/q.h5 \(catalog run a1\)$" \
    "$TMPD/err" || fail "run --out said: $(cat "$TMPD/err")"
# The catalog: the run listed with its applications, QoS verdicts and file; shown whole.
"$CORUN" runs --catalog "$TMPD/cat.db" list >"$TMPD/list" || fail "runs list"
grep -qE "^ +a1 +[0-9T:-]+Z +k40 +gmm\+nn +[0-9.]+ +[01]/1 +[0-9.]+% +$TMPD/q.h5$" "$TMPD/list" ||
    fail "runs list: $(cat "$TMPD/list")"
! grep -q "mean STP" "$TMPD/list" || fail "runs list, no spatial run: $(cat "$TMPD/list")"
# Headed from its first line (no spatial runs above it, so no blank line first).
[ "$(head -1 "$TMPD/list")" = "accelerator runs:" ] &&
    sed -n 2p "$TMPD/list" | grep -qE '^ +id +created \(UTC\) +gpu +applications +sim ms +QoS met +SM busy +run file$' ||
    fail "runs list's heading: $(cat "$TMPD/list")"
# Beside a spatial run, the accelerator runs come after it, a blank line and their heading.
"$CORUN" run "$top_srcdir/tests/data/good/small.cfg" --epochs 1 --out "$TMPD/sp.h5" \
    --catalog "$TMPD/cat2.db" >/dev/null 2>&1 || fail "the spatial run"
"$CORUN" run "$TMPD/quick.cfg" --out "$TMPD/q2.h5" --catalog "$TMPD/cat2.db" >/dev/null 2>&1 ||
    fail "the accelerator run beside it"
"$CORUN" runs --catalog "$TMPD/cat2.db" list >"$TMPD/list2" || fail "runs list, both kinds"
! grep -q '^(no runs' "$TMPD/list2" || fail "runs list, one of each kind: 'no runs': $(cat "$TMPD/list2")"
grep -A2 -x "" "$TMPD/list2" | sed -n 2p | grep -qx "accelerator runs:" &&
    grep -qE "^ +a1 .*$TMPD/q2.h5$" "$TMPD/list2" && grep -q "$TMPD/sp.h5" "$TMPD/list2" ||
    fail "runs list, both kinds: $(cat "$TMPD/list2")"
"$CORUN" runs --catalog "$TMPD/cat.db" show a1 >"$TMPD/show" || fail "runs show a1"
p99=$(sed -n 's/^gmm  *ls  *1  *6  *[0-9.]*  *\([0-9.]*\) .*/\1/p' "$TMPD/rq")
grep -qE "^  gmm +LS, 1 process: p99 $p99 ms, .*; predicted p99 [0-9.]+ ms$" "$TMPD/show" ||
    fail "runs show a1 (p99 $p99 ms): $(cat "$TMPD/show")"
grep -qE "^  nn +batch, 1 process: [1-9][0-9]* passes$" "$TMPD/show" || fail "$(cat "$TMPD/show")"
set +e
"$CORUN" runs --catalog "$TMPD/cat.db" show a2 >/dev/null 2>"$TMPD/err"
rc=$?
"$CORUN" run "$TMPD/quick.cfg" --out "$TMPD/same.db" --catalog "$TMPD/same.db" >/dev/null 2>"$TMPD/err2"
rc2=$?
set -e
[ $rc -eq 2 ] && grep -qF "has no accelerator run a2" "$TMPD/err" || fail "show a2: $rc $(cat "$TMPD/err")"
[ $rc2 -eq 2 ] && grep -qF "both name $TMPD/same.db" "$TMPD/err2" && [ ! -e "$TMPD/same.db" ] ||
    fail "--out and --catalog the same file: $rc2 $(cat "$TMPD/err2")"
"$CORUN" show "$TMPD/q.h5" >"$TMPD/sq" || fail "show q.h5"
cmp -s "$TMPD/rq" "$TMPD/sq" || fail "show printed another summary: $(diff "$TMPD/rq" "$TMPD/sq")"
"$CORUN" show "$TMPD/q.h5" --json >"$TMPD/sqj" || fail "show --json"
"$CORUN" run "$TMPD/quick.cfg" --predictor sequential --json >"$TMPD/rqj" 2>/dev/null
cmp -s "$TMPD/rqj" "$TMPD/sqj" || fail "show --json differs from run --json"
# The table is the JSON in its units: the heading, each application's row (the LS one's ratio
# p99 / solo p99), the predictor's section (its p99 error in %), the utilization line; the
# JSON's own quantiles and mean are those of its measured latencies (nearest rank), and the
# predicted ones of its predicted latencies.
python3 - "$TMPD/rq" "$TMPD/rqj" <<'PY' || fail "the accelerator table disagrees with its JSON: $(cat "$TMPD/rq")"
import json, math, sys
text, r = open(sys.argv[1]).read().splitlines(), json.load(open(sys.argv[2]))
assert text[0] == "%s (gpu %s, seed %d): %.3f ms simulated (%.2f M core cycles); solo runs %.2f M cycles" % (
    r["scenario"], r["gpu"], r["seed"], r["simulated_ms"], r["cycles"] / 1e6, r["solo_cycles"] / 1e6), text[0]
def rank(xs, q):
    xs = sorted(xs)
    return xs[math.ceil(q * len(xs)) - 1]
def close(a, b):
    return abs(a - b) <= 1e-5 * max(1, abs(b))
for a in r["applications"]:
    rows = [l for l in text if l.split()[:2] == [a["name"], a["role"]]]
    assert len(rows) == 1, (a["name"], text)
    if a["role"] == "batch":
        assert rows[0].split()[2:] == [str(a["processes"]), "passes", str(a["passes"])], rows
        continue
    want = "%-12s %-5s %5u %8u %9.3f %9.3f %12.3f %6.2fx  %s (%.2fx solo)" % (
        a["name"], "ls", a["processes"], a["queries"], a["p50_ms"], a["p99_ms"], a["solo_p99_ms"],
        a["qos_target"], "met" if a["qos_met"] else "violated", a["p99_ms"] / a["solo_p99_ms"])
    assert rows[0] == want, (rows[0], want)
    lat = a["latency_ms"]
    assert len(lat) == a["queries"], a
    assert close(a["p50_ms"], rank(lat, 0.5)) and close(a["p99_ms"], rank(lat, 0.99)), a
    assert close(a["mean_ms"], sum(lat) / len(lat)), a
    pr = a["predicted"]
    assert pr["predictor"] == "sequential", pr
    assert close(pr["p50_ms"], rank(pr["latency_ms"], 0.5)) and close(pr["p99_ms"], rank(pr["latency_ms"], 0.99)), pr
    assert close(pr["p99_error"], abs(pr["p99_ms"] - a["p99_ms"]) / a["p99_ms"]), pr
    want = "%-12s %9.3f %9.3f %12.3f %8.1f%%  %s" % (a["name"], pr["p50_ms"], pr["p99_ms"], pr["solo_ms"],
        100 * pr["p99_error"], "met" if pr["qos_met"] else "violated")
    assert want in text, (want, text)
assert any(l.startswith("predicted by sequential from solo-run profiles (") for l in text), text
assert text[-1] == "GPU utilization %.1f %% of SM time busy; PCIe busy: host to device %.1f %%, device to host %.1f %%; %d tasks done" % (
    100 * r["gpu_utilization"], 100 * r["pcie_busy_h2d"], 100 * r["pcie_busy_d2h"], r["tasks_done"]), text[-1]
PY
# Without a predictor, neither has a predicted part.
"$CORUN" run "$TMPD/quick.cfg" --predictor none >"$TMPD/rn" 2>/dev/null
"$CORUN" run "$TMPD/quick.cfg" --predictor none --json 2>/dev/null | grep -q '"predicted"' &&
    fail "--predictor none: a predicted part in the JSON"
grep -q '^predicted by' "$TMPD/rn" && fail "--predictor none: a predicted part: $(cat "$TMPD/rn")"
if command -v h5dump >/dev/null; then
    tasks=$(sed -n 's/.* \([0-9]*\) tasks done$/\1/p' "$TMPD/rq")
    h5dump -H "$TMPD/q.h5" | grep -qF "DATASPACE  SIMPLE { ( $tasks ) / ( H5S_UNLIMITED ) }" \
        || fail "the task table does not have the $tasks tasks done"
fi
# An --out it cannot take is said before simulating (it was said after the whole run, which
# it then lost, and a missing directory was "unknown HDF5 error"): exit 2, nothing printed.
for bad in "$TMPD/q.h5|already exists; a run file is never overwritten" \
    "$TMPD|is a directory (expected the name of a new run file)" \
    "$TMPD/none/q.h5|cannot create: its directory does not exist"; do
    set +e
    "$CORUN" run "$TMPD/quick.cfg" --out "${bad%%|*}" >"$TMPD/out" 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc = 2 ] && [ ! -s "$TMPD/out" ] &&
        [ "$(cat "$TMPD/err")" = "corun: ${bad%%|*}: ${bad#*|} (checked before simulating)" ] ||
        fail "run --out ${bad%%|*}: exit $rc, $(cat "$TMPD/out" "$TMPD/err")"
done
# export: the run as CSV files, a row per task and per query, the summary's numbers in run.csv.
"$CORUN" export "$TMPD/q.h5" --csv "$TMPD/csv" 2>"$TMPD/err" || fail "export: $(cat "$TMPD/err")"
grep -qF "wrote run.csv, applications.csv, queries.csv and tasks.csv in $TMPD/csv" "$TMPD/err" ||
    fail "export's message: $(cat "$TMPD/err")"
done_tasks=$(sed -n 's/.* \([0-9]*\) tasks done$/\1/p' "$TMPD/rq")
[ "$(($(wc -l <"$TMPD/csv/tasks.csv") - 1))" -eq "$done_tasks" ] ||
    fail "tasks.csv: $(wc -l <"$TMPD/csv/tasks.csv") lines for $done_tasks tasks"
python3 - "$TMPD/csv" "$done_tasks" <<'PY' || fail "export's CSV files (above)"
import csv, sys
d, tasks = sys.argv[1], int(sys.argv[2])
run = list(csv.DictReader(open(f"{d}/run.csv")))
assert len(run) == 1 and int(run[0]["tasks_done [tasks]"]) == tasks, run
apps = list(csv.DictReader(open(f"{d}/applications.csv")))
assert len(apps) == int(run[0]["napps [applications]"]), apps
names = {a["name"] for a in apps}
for row in csv.DictReader(open(f"{d}/tasks.csv")):
    assert row["application"] in names and float(row["end_ns [ns]"]) >= float(row["issued_ns [ns]"]), row
queries = list(csv.DictReader(open(f"{d}/queries.csv")))
ls = [a for a in apps if a["role"] == "0"]
assert len(queries) == sum(int(a["queries [queries]"]) for a in ls), len(queries)
PY
# Commands that read spatial runs name an accelerator run file as one, and every command that
# reads it (export and plot were left out).
for cmd in "branch $TMPD/q.h5 1"; do
    set +e
    # shellcheck disable=SC2086 # the command's words
    "$CORUN" $cmd >/dev/null 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc -eq 2 ] && grep -qF "q.h5: an accelerator run file (its task table); \`corun show\`, \`replay\`, \`export\` and \`plot\` read it" \
        "$TMPD/err" || fail "corun $cmd: exit $rc, $(cat "$TMPD/err")"
done
head -c 9000 "$TMPD/q.h5" >"$TMPD/cut.h5"
set +e
"$CORUN" show "$TMPD/cut.h5" >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -qF "cut.h5: truncated: the file has 9000 bytes" "$TMPD/err" \
    || fail "show of a truncated accelerator run file: exit $rc, $(cat "$TMPD/err")"

# What check refuses, run refuses alike.
for bad in "$top_srcdir"/tests/data/bad/accel_*.cfg; do
    set +e
    "$CORUN" check "$bad" >/dev/null 2>"$TMPD/check.err"
    crc=$?
    "$CORUN" run "$bad" >"$TMPD/out" 2>"$TMPD/run.err"
    rrc=$?
    set -e
    [ $crc -eq 2 ] && [ $rrc -eq 2 ] || fail "$bad: check exit $crc, run exit $rrc (expected 2)"
    cmp -s "$TMPD/check.err" "$TMPD/run.err" || fail "$bad: check and run say different things"
    [ ! -s "$TMPD/out" ] || fail "$bad: run printed on stdout"
done
# An application profile of data/apps whose kernel task names a library kernel of phases: check
# refuses it with the profile's file and line, and run alike before simulating (check said ok,
# and the run failed at the kernel's launch, exit 1).
dd="$TMPD/phased"
mkdir -p "$dd/data/apps" "$dd/data/kernels"
ln -s "$top_srcdir/data/gpus" "$dd/data/gpus"
cp "$top_srcdir"/data/apps/*.cfg "$dd/data/apps/"
cp "$top_srcdir"/data/kernels/*.cfg "$dd/data/kernels/"
cp "$top_srcdir/data/kernels/atax.cfg" "$dd/data/kernels/myphase.cfg"
printf '%s\n' 'description = "user app"; source = "me";' \
    'tasks = ( { type = "h2d"; bytes = 65536; },' '  { type = "kernel"; kernel = "myphase"; },' \
    '  { type = "d2h"; bytes = 4096; } );' >"$dd/data/apps/myapp.cfg"
sed 's/name = "gmm";/name = "myapp";/' "$TMPD/quick.cfg" >"$TMPD/myapp.cfg"
grep -q '"myapp"' "$TMPD/myapp.cfg" || fail "quick.cfg has no gmm to replace"
set +e
CORUN_DATADIR="$dd" "$CORUN" check "$TMPD/myapp.cfg" >"$TMPD/out" 2>"$TMPD/check.err"
crc=$?
CORUN_DATADIR="$dd" "$CORUN" run "$TMPD/myapp.cfg" >>"$TMPD/out" 2>"$TMPD/run.err"
rrc=$?
set -e
[ $crc -eq 2 ] && [ $rrc -eq 2 ] && [ ! -s "$TMPD/out" ] ||
    fail "a phased kernel in an app profile: check exit $crc, run exit $rrc, expected 2: $(cat "$TMPD/out" "$TMPD/run.err")"
[ "$(cat "$TMPD/check.err")" = "$dd/data/apps/myapp.cfg:3: tasks[1].kernel: kernel \"myphase\" has 2 phases (expected one kernel per task: list each phase as a kernel task of its own)" ] ||
    fail "a phased kernel in an app profile: $(cat "$TMPD/check.err")"
cmp -s "$TMPD/check.err" "$TMPD/run.err" || fail "a phased kernel: check and run say different things"
# `check` of the application profile itself says the same of it, and takes a good one, in the
# data directory or anywhere (it checked one as a spatial scenario: every setting unknown). A
# kernel whose thread block fits no SM of k40 is refused, naming its task and its line.
set +e
CORUN_DATADIR="$dd" "$CORUN" check "$dd/data/apps/myapp.cfg" >"$TMPD/out" 2>"$TMPD/err"
crc=$?
set -e
[ $crc -eq 2 ] && cmp -s "$TMPD/check.err" "$TMPD/err" ||
    fail "check of myapp.cfg: exit $crc: $(cat "$TMPD/out" "$TMPD/err")"
out=$("$CORUN" check "$top_srcdir/data/apps/asr.cfg") || fail "check of asr.cfg: $out"
[ "$out" = 'ok (an application profile of 4 tasks, 2 kernels fitting an SM of k40; accelerator scenarios name it "asr")' ] ||
    fail "check of asr.cfg: $out"
sed 's/regs_per_thread = 32/regs_per_thread = 255/; s/warps_per_tb = 8/warps_per_tb = 32/' \
    "$top_srcdir/data/apps/asr.cfg" >"$TMPD/fat.cfg"
expect_bad "check of an app whose kernels fit no SM" \
    "^$TMPD/fat.cfg:13: tasks\[1\].kernel: on GPU k40: kernel fat-k1: no thread block fits on an SM" \
    "$CORUN" check "$TMPD/fat.cfg"
# A scenario naming that profile in the data directory: the scenario's line of the application
# and the profile's of the setting (it named the profile only).
cp "$TMPD/fat.cfg" "$dd/data/apps/fat.cfg"
sed 's/name = "gmm";/name = "fat";/' "$TMPD/quick.cfg" >"$TMPD/fatapp.cfg"
CORUN_DATADIR="$dd" expect_bad "a scenario naming an app whose kernels fit no SM" \
    "^$TMPD/fatapp.cfg:[0-9]*: applications\[0\]\.tasks\[1\]\.kernel (of data/apps/fat\.cfg:13): on GPU k40: kernel fat-k1: no thread block fits on an SM" \
    "$CORUN" check "$TMPD/fatapp.cfg"

set +e
"$CORUN" run "$top_srcdir/tests/data/bad/accel_no_qos.cfg" >/dev/null 2>"$TMPD/err"
set -e
grep -qF "accel_no_qos.cfg:6: applications[0].qos_target: required for an LS application" \
    "$TMPD/err" || fail "run of a bad one: $(cat "$TMPD/err")"

needs_both_terminals "the workbench needs a terminal; 'corun run $TMPD/pair.cfg' runs it without" \
    tui "$TMPD/pair.cfg"

# An LS application's pageable copy behind a batch one's pinned copies, back to back: the
# run ends (the copy starved after 100 ms of simulated time), says which queries never
# completed, and --json gives their latency as null.
cat >"$TMPD/starve.cfg" <<'EOF2'
mode = "accelerator"; name = "starve"; gpu = "k40"; seed = 1;
applications = (
 { name = "q"; role = "ls"; qos_target = 2.0; queries = 2;
   tasks = ( { type = "h2d"; bytes = 6000; } ); },
 { name = "b"; role = "batch"; instances = 1;
   tasks = ( { type = "h2d"; bytes = 2097152; copy = "exclusive"; } ); }
);
EOF2
"$CORUN" check "$TMPD/starve.cfg" >/dev/null 2>"$TMPD/err" || fail "check of a starving one: $(cat "$TMPD/err")"
timeout 120 "$CORUN" run "$TMPD/starve.cfg" --out "$TMPD/starve.h5" --catalog "$TMPD/cat.db" \
    >"$TMPD/starve" 2>"$TMPD/err" || fail "run of a starving one: exit $? $(cat "$TMPD/err")"
# In the catalog its p99 (infinite) is no number: `runs show` says why.
"$CORUN" runs --catalog "$TMPD/cat.db" show a2 >"$TMPD/show" || fail "runs show a2"
grep -qE "^  q +LS, 1 process: no p99 \(a query did not complete, or none was answered\), [0-9.]+ ms alone against 2\.00x: not met$" \
    "$TMPD/show" || fail "runs show, starved: $(cat "$TMPD/show")"
# Both accelerator runs listed, a row each, in order.
"$CORUN" runs --catalog "$TMPD/cat.db" list >"$TMPD/list" || fail "runs list, two accelerator runs"
[ "$(grep -oE '^ +a[0-9]+ ' "$TMPD/list" | tr -d ' ' | tr '\n' ' ')" = "a1 a2 " ] ||
    fail "runs list, two accelerator runs: $(cat "$TMPD/list")"
grep -qE '^q +ls +1 +2 +inf +inf .* violated' "$TMPD/starve" || fail "starved: $(cat "$TMPD/starve")"
grep -qF "q: 2 of 2 queries never completed: a copy of it waited 100 ms of simulated time behind bandwidth-exclusive copies" \
    "$TMPD/starve" || fail "starved, no note: $(cat "$TMPD/starve")"
timeout 120 "$CORUN" run "$TMPD/starve.cfg" --json >"$TMPD/starve.json" 2>/dev/null || fail "run --json, starved"
python3 -c '
import json, sys
q = json.load(open(sys.argv[1]))["applications"][0]
assert q["never_completed"] == 2 and q["latency_ms"] == [None, None] and q["p99_ms"] is None, q
' "$TMPD/starve.json" || fail "starved --json: $(cat "$TMPD/starve.json")"
# Its file reads back, latencies infinite as the run printed them (show, export and plot
# refused it as damaged: "/applications/p50_ms[0] is inf").
"$CORUN" show "$TMPD/starve.h5" >"$TMPD/starve.shown" 2>"$TMPD/err" || fail "show, starved: $(cat "$TMPD/err")"
grep -qE '^q +ls +1 +2 +inf +inf .* violated' "$TMPD/starve.shown" || fail "show, starved: $(cat "$TMPD/starve.shown")"
"$CORUN" export "$TMPD/starve.h5" --csv "$TMPD/starve.csv" >/dev/null 2>"$TMPD/err" || fail "export, starved: $(cat "$TMPD/err")"
grep -qx "q,0,1,inf,nan" "$TMPD/starve.csv/queries.csv" || fail "export, starved: $(cat "$TMPD/starve.csv/queries.csv")"

"$CORUN" help accelerator >"$TMPD/help" || fail "help accelerator"
# `help scenario accelerator`, as `corun help` puts it ("every setting of a scenario (spatial or
# accelerator)"), is the same help (it was "'scenario' is no command").
"$CORUN" help scenario accelerator | cmp -s - "$TMPD/help" || fail "help scenario accelerator"
for word in applications qos_target rate_qps instances bytes exclusive kernel; do
    grep -q "$word" "$TMPD/help" || fail "help accelerator does not mention $word"
done
# Poisson arrivals spanning hours of GPU time: check takes them, and says what they cost (a run
# of 3 queries at 0.001 per second went on without a word).
cat >"$TMPD/slow.cfg" <<'CFG'
mode = "accelerator"; name = "slow"; gpu = "k40"; seed = 3;
applications = (
  { name = "gmm"; role = "ls"; qos_target = 1.5; arrival = "poisson"; rate_qps = 0.001; queries = 3; },
  { name = "nn"; role = "batch"; } );
CFG
"$CORUN" check "$TMPD/slow.cfg" >"$TMPD/out" 2>"$TMPD/err" && [ "$(cat "$TMPD/out")" = ok ] &&
    grep -q "^corun: warning: $TMPD/slow.cfg: gmm's 3 queries at 0.001 per second arrive over about 3000 s of GPU time" "$TMPD/err" ||
    fail "check of hours of arrivals: $(cat "$TMPD/out" "$TMPD/err")"
# Beside a batch application the GPU works through the whole span, so 5 queries at 1 per second
# (some 3.7 G cycles) are long too; alone, the gaps between them are jumped over.
sed 's/rate_qps = 0.001; queries = 3;/rate_qps = 1; queries = 5;/' "$TMPD/slow.cfg" >"$TMPD/busy.cfg"
"$CORUN" check "$TMPD/busy.cfg" >"$TMPD/out" 2>"$TMPD/err" && [ "$(cat "$TMPD/out")" = ok ] &&
    grep -q "^corun: warning: $TMPD/busy.cfg: gmm's 5 queries at 1 per second arrive over about 5.0 s of GPU time, with nn's batch work running throughout" "$TMPD/err" ||
    fail "check of 5 s of arrivals beside a batch application: $(cat "$TMPD/out" "$TMPD/err")"
grep -v '"batch"' "$TMPD/busy.cfg" | sed 's/queries = 5; },/queries = 5; } );/' >"$TMPD/alone.cfg"
"$CORUN" check "$TMPD/alone.cfg" >"$TMPD/out" 2>"$TMPD/err" && [ "$(cat "$TMPD/out")" = ok ] &&
    [ ! -s "$TMPD/err" ] || fail "check of 5 s of arrivals alone: $(cat "$TMPD/out" "$TMPD/err")"
# So does a copy that alone takes minutes over the link (1 TiB: 183 s at 6 GB/s; it went on
# without a word).
cat >"$TMPD/huge.cfg" <<'CFG'
mode = "accelerator"; name = "huge"; gpu = "k40"; seed = 3;
applications = ( { name = "mine"; role = "ls"; qos_target = 1.5; arrival = "closed"; queries = 2;
  tasks = ( { type = "h2d"; bytes = 1099511627776; }, { type = "kernel"; kernel = "compute"; } ); } );
CFG
"$CORUN" check "$TMPD/huge.cfg" >"$TMPD/out" 2>"$TMPD/err" && [ "$(cat "$TMPD/out")" = ok ] &&
    grep -q "^corun: warning: $TMPD/huge.cfg: mine's task 1 copies 1099511627776 bytes, about 183 s over the link at 6 GB/s: a very long simulation$" "$TMPD/err" ||
    fail "check of a huge copy: $(cat "$TMPD/out" "$TMPD/err")"
# A query under a microsecond (one instruction of one warp): its latency read 0.000 ms in
# run's table and in runs show; three significant digits now, the table's columns kept.
cat >"$TMPD/tiny.cfg" <<'CFG'
mode = "accelerator"; name = "tiny"; gpu = "k40"; seed = 3;
applications = ( { name = "q"; role = "ls"; qos_target = 2.0; queries = 3; tasks = ( { type = "kernel";
  kernel = { tbs = 1; warps_per_tb = 1; insts_per_warp = 1; mem_fraction = 0.0; footprint_bytes = 128; }; } ); } );
CFG
"$CORUN" run "$TMPD/tiny.cfg" --out "$TMPD/tiny.h5" --catalog "$TMPD/tiny.db" >"$TMPD/tiny" 2>/dev/null &&
    "$CORUN" runs --catalog "$TMPD/tiny.db" show a1 >>"$TMPD/tiny" &&
    "$CORUN" runs --catalog "$TMPD/tiny.db" list >"$TMPD/tinylist" || fail "run of a tiny query"
grep -qE '^ +a1 .* q +0\.0000[1-9][0-9]{2} +1/1 ' "$TMPD/tinylist" ||
    fail "runs list, a run under a microsecond: $(cat "$TMPD/tinylist")"
grep -qE '^tiny \(gpu k40, seed 3\): 0\.0000[1-9][0-9]{2} ms simulated' "$TMPD/tiny" &&
    grep -qE '^q {12}ls {8}1 {8}3 0\.0000[1-9][0-9]{2} 0\.0000[1-9][0-9]{2} {4}0\.0000[1-9][0-9]{2}   2\.00x  met' "$TMPD/tiny" &&
    grep -qE '^  q +LS, 1 process: p99 0\.0000[1-9][0-9]{2} ms, 1\.00x its 0\.0000[1-9][0-9]{2} ms alone' "$TMPD/tiny" ||
    fail "latencies under a microsecond: $(cat "$TMPD/tiny")"
# Only one end a terminal: `replay` of an accelerator run refuses before curses starts.
needs_both_terminals "the workbench needs a terminal; 'corun show $TMPD/q.h5' prints the run" replay "$TMPD/q.h5"
echo "accelerator scenarios: check ok, run prints latencies, QoS and utilization (same twice, --json agrees), --out and show agree, bad ones refused alike by check and run, a starved copy ends the run and is reported, tui without a terminal says so, help lists the settings"
