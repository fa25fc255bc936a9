#!/usr/bin/env bash
# The program's front door: --help, --version, help topics, unknown commands, check ok.
. "$(dirname "$0")/../lib.sh"

out=$("$CORUN" --help)
for c in tui check help; do
    grep -q "^  $c " <<<"$out" || fail "--help does not list '$c'"
done
# It fits an 80-column terminal: each command with its operands (the options are in its own
# help), the summary wrapped beside it.
! awk 'length > 80' <<<"$out" | grep -q . || fail "--help is wider than 80 columns: $out"
grep -q '^  run SCENARIO  *run a scenario headless' <<<"$out" || fail "--help: run's line: $out"
grep -q '^  train MODEL  *fit a predictor' <<<"$out" || fail "--help: train's line: $out"
grep -q '^  kernels  *the kernel library' <<<"$out" || fail "--help: kernels' line (its forms do not fit): $out"
# So does every command's help and every help topic.
for c in $(sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' <<<"$out") scenario accelerator gpu kernel \
    lesson suite predictors allocators; do
    wide=$("$CORUN" help "$c" | awk 'length > 80')
    [ -z "$wide" ] || fail "corun help $c: wider than 80 columns: $wide"
done
# The simulator id is the checksum of the simulator's sources as they are now: a stale one would
# let the catalog hand out private-mode traces of another simulator.
: "${SIM_ID_INPUTS:?run this test through make check}"
sum=$(cd "$top_srcdir" && cat $SIM_ID_INPUTS | cksum | cut -d' ' -f1)
"$CORUN" --version | grep -qx "corun [0-9.]* (simulator $(printf %08x "$sum"))" \
    || fail "--version: $("$CORUN" --version), expected simulator $(printf %08x "$sum")"

"$CORUN" help scenario | grep -q 'epoch_cycles' || fail "help scenario lacks epoch_cycles"
# A command's verb after it: its narrower help where it has one, else its whole help (`help runs
# query` was a usage error).
"$CORUN" help runs query >"$TMPD/help" 2>&1 && grep -q '^usage: corun runs ' "$TMPD/help" ||
    fail "help runs query: $(cat "$TMPD/help")"
# (Lines wider than 80 columns are wrapped: the words, blanks squeezed.)
"$CORUN" help scenario | tr -s ' \n' '  ' |
    grep -q 'an integer from 1000 to 100000000, in core cycles; default: 500000' \
    || fail "help scenario lacks range/unit/default"
"$CORUN" help gpu | grep -q 'dram.timing.faw' || fail "help gpu lacks dram.timing.faw"
# One setting by the name a file, --set or the workbench's editor gives it (`help epoch_cycles`
# said "no help"): each kind of file that has it, and nothing else.
"$CORUN" help epoch_cycles >"$TMPD/help" 2>&1 || fail "help epoch_cycles: $(cat "$TMPD/help")"
grep -q '^A setting of a scenario (`corun help scenario`' "$TMPD/help" &&
    grep -q '^A setting of a suite ' "$TMPD/help" && ! grep -q 'fairness_threshold' "$TMPD/help" ||
    fail "help epoch_cycles: $(cat "$TMPD/help")"
"$CORUN" help 'kernels[1].priority' | grep -q 'one of low, high; default: low' ||
    fail "help kernels[1].priority: $("$CORUN" help 'kernels[1].priority' 2>&1)"
"$CORUN" help gpu_overrides.dram.timing.rcd | grep -q '^  dram.timing.rcd  *tRCD' ||
    fail "help gpu_overrides.dram.timing.rcd: $("$CORUN" help gpu_overrides.dram.timing.rcd 2>&1)"
expect_bad "help of no setting" "no help on 'epoch_cycle' (did you mean 'epoch_cycles'?).*a setting's name" \
    "$CORUN" help epoch_cycle
"$CORUN" help kernel | grep -q 'footprint_bytes' || fail "help kernel lacks footprint_bytes"
# The registries' help lists every entry, in the order the refusals name them (the first and
# the last too), nothing else; a topic's own text comes alone (no other command's usage first).
names() { sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | tr '\n' ' '; }
known=$("$CORUN" run "$top_srcdir/scenarios/default.cfg" --allocator nope 2>&1 | sed 's/.*known: //; s/,//g')
got=$("$CORUN" help allocators | names)
[ "$got" = "$known " ] || fail "help allocators lists '$got', the refusal '$known'"
known=$("$CORUN" run "$top_srcdir/scenarios/default.cfg" --predictor nope 2>&1 |
    sed 's/.*known: //; s/ (did.*//; s/,//g; s/ none$//')
"$CORUN" help predictors >"$TMPD/help"
got=$(sed '/^Accelerator scenarios/q' "$TMPD/help" | names)
[ "$got" = "none $known " ] || fail "help predictors (spatial) lists '$got', the refusal 'none $known'"
got=$(sed '1,/^Accelerator scenarios/d' "$TMPD/help" | names)
[ "$got" = "none prophet sequential bubble prophet-even " ] ||
    fail "help predictors (accelerator) lists '$got'"
"$CORUN" help suite >"$TMPD/help" || fail "help suite: exit $?"
head -1 "$TMPD/help" | grep -q '^usage: corun suite ' || fail "help suite: no usage first: $(cat "$TMPD/help")"
for l in '^A suite file' '^Each entry of mixes:' '^  mixes  '; do
    grep -q "$l" "$TMPD/help" || fail "help suite lacks $l: $(cat "$TMPD/help")"
done
for t in scenario accelerator gpu kernel predictors allocators; do
    "$CORUN" help $t | head -1 | grep -q '^usage: ' && fail "help $t starts with a usage line"
done
"$CORUN" check --help | grep -q 'usage: corun check SCENARIO' || fail "check --help"
# An allocation experiment's own help: its usage line and every policy label of its table,
# the same through --help and through `corun help reproduce ...`; an accuracy experiment gets
# the command's whole help; extra words after a command without narrower help are refused.
"$CORUN" reproduce hsm --threshold --help >"$TMPD/h1" || fail "reproduce hsm --threshold --help"
"$CORUN" help reproduce hsm --threshold >"$TMPD/h2" || fail "help reproduce hsm --threshold"
cmp -s "$TMPD/h1" "$TMPD/h2" || fail "the two ways of asking differ"
grep -q '^usage: corun reproduce hsm --threshold \[-j N\]' "$TMPD/h1" || fail "no usage: $(cat "$TMPD/h1")"
for l in even fair/hsm@0.70 fair/hsm@0.90 fair/hsm@0.95; do
    grep -Eq "^  $l +" "$TMPD/h1" || fail "hsm --threshold --help lacks $l: $(cat "$TMPD/h1")"
done
grep -q '^  --policies LABEL' "$TMPD/h1" || fail "hsm --threshold --help lacks --policies"
# Its usage line names every option the help lists (--threads was listed and left out of it);
# the sbatch options stand together as SBATCH OPTIONS.
usage=$(sed '/^$/q' "$TMPD/h1")
for o in $(grep -oE '^  --[a-z-]+' "$TMPD/h1" | grep -vE -- '--(partition|time|cpus-per-task|account|sbatch-arg)$'); do
    case "$usage" in *"$o "* | *"$o]"*) ;; *) fail "hsm --threshold's usage lacks $o: $usage" ;; esac
done
"$CORUN" help reproduce smqos --offline | grep -Eq '^  offline@95% +offline, QoS target 0.95$' ||
    fail "help reproduce smqos --offline lacks offline@95%"
# No such experiment (smqos has no --fairness): every allocation experiment, one per line.
"$CORUN" reproduce smqos --fairness --help | grep -Eq '^  hsm +--fairness +HSM Figs\. 11, 13$' ||
    fail "reproduce smqos --fairness --help: no list of experiments"
"$CORUN" reproduce hsm --accuracy --help | grep -q '^Experiments (--list): hsm --accuracy' ||
    fail "reproduce hsm --accuracy --help: not the command's help"
# The merge verbs' own help, asked both ways.
for c in sweep reproduce; do
    for how in "help $c merge" "$c merge --help"; do
        # shellcheck disable=SC2086 # the words of the request, on purpose
        "$CORUN" $how | head -1 | grep -q "^usage: corun $c merge " || fail "corun $how: $("$CORUN" $how 2>&1 | head -2)"
    done
done
set +e
"$CORUN" help run extra >/dev/null 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q '^usage: corun help' "$TMPD/err" || fail "help run extra: exit $rc"

set +e
"$CORUN" chek x.cfg 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown command: exit $rc, expected 2"
grep -q "'chek' is not a command (did you mean 'check'?)" "$TMPD/err" || fail "no suggestion: $(cat "$TMPD/err")"
# The beginning of several commands suggests them all (it suggested none).
set +e
"$CORUN" re 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -qx "corun: 're' is not a command (did you mean 'replay' or 'reproduce'?); see 'corun --help'" \
    "$TMPD/err" || fail "re: exit $rc: $(cat "$TMPD/err")"

set +e
"$CORUN" --frobnicate 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown option: exit $rc"
# A negative number where a count is expected is named as one, and the refused argument is the
# one quoted, not the file name getopt stepped over ('-2.5' is refused inside its letter group).
for args in "branch x.h5 -1" "sweep x.cfg -2.5"; do
    set +e
    "$CORUN" $args 2>"$TMPD/err"; rc=$?
    set -e
    want=${args##* }
    [ $rc -eq 2 ] && grep -qx "corun: ${args%% *}: '$want' is not an option, and a negative number is not accepted here" \
        "$TMPD/err" || fail "$args: exit $rc: $(cat "$TMPD/err")"
done
set +e
"$CORUN" sweep x.cfg -qz 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -qxF "corun: sweep: unknown option '-qz' (\`corun sweep --help\` lists its options)" "$TMPD/err" ||
    fail "sweep x.cfg -qz: $(cat "$TMPD/err")"
# A long option near one the command takes is named (a typo), checked before the file is read.
set +e
"$CORUN" run x.cfg --predicter hsm 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -qx "corun: run: unknown option '--predicter' (did you mean --predictor?)" "$TMPD/err" ||
    fail "run --predicter: exit $rc: $(cat "$TMPD/err")"
# The beginning of two (getopt's ambiguous abbreviation) names both: it named --set alone.
set +e
"$CORUN" run x.cfg --se 1 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -qx "corun: run: unknown option '--se' (did you mean --set or --seed?)" "$TMPD/err" ||
    fail "run --se: exit $rc: $(cat "$TMPD/err")"
# The workbench commands say what they refused before their usage line.
set +e
"$CORUN" replay x.h5 --epoch 3 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -qx "corun: replay: unknown option '--epoch'" "$TMPD/err" || fail "replay --epoch: $(cat "$TMPD/err")"
# A one-letter option after the operand is an option refused, not a second operand.
for c in "check a.cfg" "show a.h5" "replay a.h5"; do
    set +e
    # shellcheck disable=SC2086 # the command and its operand, on purpose
    "$CORUN" $c -q 2>"$TMPD/err"; rc=$?
    set -e
    [ $rc -eq 2 ] && grep -qx "corun: ${c%% *}: unknown option '-q'" "$TMPD/err" || fail "$c -q: $(cat "$TMPD/err")"
done
set +e
"$CORUN" tui a.cfg b.cfg 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -qx "corun: tui: unexpected second argument 'b.cfg' (after 'a.cfg')" "$TMPD/err" ||
    fail "tui a.cfg b.cfg: $(cat "$TMPD/err")"

[ "$("$CORUN" check "$top_srcdir/scenarios/default.cfg")" = ok ] || fail "default.cfg is not ok"
# The first screen a new user sees must not show a rule holding by construction: the default
# scenario's compute-bound kernel (a paper's, by its profile's class) keeps less than 0.9 of its
# share of the SMs beside the streaming kernel. The synthetic "compute" it had before issued two
# instructions per cycle per SM whatever ran beside it: NP exactly 0.500 on half the SMs.
"$CORUN" run default --epochs 2 --set epoch_cycles=100000 --json >"$TMPD/default.json" ||
    fail "run default: exit $?"
second=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["epochs"][-1]["kernels"][1]["name"])' \
    "$TMPD/default.json")
"$CORUN" kernels list | grep -Eq "^$second +[a-z]+ +compute " ||
    fail "the default scenario's second kernel ($second) is not a paper's compute-bound profile"
python3 - "$TMPD/default.json" <<'PY' || fail "default scenario: $(cat "$TMPD/default.json")"
import json, sys
k = json.load(open(sys.argv[1]))["epochs"][-1]["kernels"][1]
assert k["np"] / (k["sms"] / 80) < 0.9, k  # hbm80's 80 SMs
PY

set +e
"$CORUN" tui "$top_srcdir/scenarios/default.cfg" </dev/null >/dev/null 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'needs a terminal' "$TMPD/err" || fail "tui without a terminal: exit $rc"
needs_both_terminals "the workbench needs a terminal; for scripts see 'corun --help'" \
    tui "$top_srcdir/scenarios/default.cfg"
# Both themes are taken by name (the refusal is then the terminal's, not the theme's).
for theme in default projector; do
    set +e
    "$CORUN" tui "$top_srcdir/scenarios/default.cfg" --theme "$theme" </dev/null >/dev/null 2>"$TMPD/err"; rc=$?
    set -e
    [ $rc -eq 2 ] && grep -q 'needs a terminal' "$TMPD/err" || fail "tui --theme $theme: exit $rc: $(cat "$TMPD/err")"
done
# A command called without its operands, or with one too many, says which before its usage
# (once).
while IFS='|' read -r args want; do
    set +e
    "$CORUN" $args </dev/null >/dev/null 2>"$TMPD/err"; rc=$?
    set -e
    [ $rc -eq 2 ] && [ "$(head -1 "$TMPD/err")" = "$want" ] &&
        [ "$(grep -c '^usage: corun ' "$TMPD/err")" = 1 ] || fail "$args: exit $rc: $(cat "$TMPD/err")"
done <<'EOF'
run|corun: run: expected a scenario file (SCENARIO)
run a.cfg b.cfg|corun: run: unexpected second argument 'b.cfg' (after 'a.cfg')
check|corun: check: expected a scenario, lesson, suite, kernel or application file
solo|corun: solo: expected a kernel's name (KERNEL)
sweep|corun: sweep: expected a suite file (SUITE; `corun suite list` lists the suites corun ships)
train|corun: train: expected a model's name (MODEL)
reproduce|corun: reproduce: expected an experiment's name (EXPERIMENT; --list lists them)
branch x.h5|corun: branch: expected a run file and an epoch (RUN.h5 EPOCH), got one argument
branch x.h5 1 2|corun: branch: unexpected argument '2' (after the 2 it takes)
dram-trace|corun: dram-trace: expected a trace file (TRACE)
replay|corun: replay: expected a run file (RUN.h5)
kernels show|corun: kernels show: expected a kernel's name (NAME)
kernels list x|corun: kernels list: unexpected argument 'x'
kernels show bino x|corun: kernels show: unexpected argument 'x'
plot x.h5|corun: plot: expected --out FILE.svg or --out FILE.png
plot x.h5 --out|corun: plot: --out needs a value (`corun plot --help` says which)
export x.h5|corun: export: expected --csv DIR, the directory to write to
export --csv d|corun: export: expected a run file (RUN.h5)
show|corun: show: expected a run file (RUN.h5)
suite check|corun: suite check: expected one suite file (SUITE; `corun suite list` lists the suites corun ships)
slurm|corun: slurm: expected an action and a job directory (JOB)
slurm collect 100 --catalog x.db|corun: slurm: unknown option '--catalog' (it takes --wait, with resubmit; the job's own options, such as --catalog, were given when it was submitted)
EOF
# help runs names every table the catalog makes (it left out reproduce_results).
"$CORUN" help runs >"$TMPD/help-runs" 2>&1 || fail "help runs: exit $?"
for t in $(grep -ho 'CREATE TABLE \(IF NOT EXISTS \)\?\(main\.\)\?[a-z_0-9]*' "$top_srcdir"/src/io/catalog*.c |
    sed 's/.* //; s/^main\.//' | grep -v '_v[0-9]*$' | sort -u); do
    grep -qw "$t" "$TMPD/help-runs" || fail "help runs does not name the table $t"
done
# kernels, runs and lesson without a verb list, as with list (runs of an empty catalog).
XDG_DATA_HOME=$TMPD/nonexdg "$CORUN" runs list >/dev/null || fail "runs list, a new default catalog"
for cmd in "kernels" "runs --catalog $TMPD/nonexdg/corun/catalog.db" "lesson"; do
    "$CORUN" $cmd >"$TMPD/alone" 2>&1 || fail "$cmd alone: exit $?: $(cat "$TMPD/alone")"
    "$CORUN" $cmd list >"$TMPD/listed" 2>&1 || fail "$cmd list: exit $?"
    [ -s "$TMPD/alone" ] && cmp -s "$TMPD/alone" "$TMPD/listed" || fail "$cmd alone is not $cmd list:
$(head -3 "$TMPD/alone")"
done
# A SCENARIO that names no file is one corun ships, taken by name (said on stderr); a file of
# that name in the working directory comes first.
mkdir -p "$TMPD/cwd"
( cd "$TMPD/cwd" && "$CORUN" check default ) >"$TMPD/out" 2>"$TMPD/err" || fail "check default: $(cat "$TMPD/err")"
[ "$(cat "$TMPD/out")" = ok ] && grep -q "^corun: default: no such file here; using .*/scenarios/default.cfg$" "$TMPD/err" ||
    fail "check default: $(cat "$TMPD/out" "$TMPD/err")"
( cd "$TMPD/cwd" && "$CORUN" check studies/quad-mixed ) >"$TMPD/out" 2>/dev/null && [ "$(cat "$TMPD/out")" = ok ] ||
    fail "check studies/quad-mixed"
printf 'name = "local";\nepochs = 0;\n' >"$TMPD/cwd/default.cfg"
set +e
( cd "$TMPD/cwd" && "$CORUN" check default.cfg ) >/dev/null 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q '^default.cfg:' "$TMPD/err" || fail "a local default.cfg was not the one checked: $(cat "$TMPD/err")"
# NAME alone finds NAME.cfg here before the one corun ships (it said "no such file here").
set +e
( cd "$TMPD/cwd" && "$CORUN" check default ) >/dev/null 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -qx 'corun: default: using default.cfg' "$TMPD/err" && grep -q '^default.cfg:' "$TMPD/err" ||
    fail "check default beside a local default.cfg: exit $rc: $(cat "$TMPD/err")"
# A lesson by the name `corun lesson list` gives it.
( cd "$TMPD/cwd" && "$CORUN" check even-split ) >"$TMPD/out" 2>"$TMPD/err" || fail "check even-split: $(cat "$TMPD/err")"
[ "$(cat "$TMPD/out")" = ok ] && grep -q "^corun: even-split: no such file here; using .*/scenarios/lessons/even-split.cfg$" "$TMPD/err" ||
    fail "check even-split: $(cat "$TMPD/out" "$TMPD/err")"
set +e
( cd "$TMPD/cwd" && "$CORUN" run no-such-scenario ) >/dev/null 2>"$TMPD/err"; rc=$?
set -e
# One line, where it looked (the loader's "cannot open" followed it).
[ $rc -eq 2 ] && [ "$(wc -l <"$TMPD/err")" = 1 ] || fail "run no-such-scenario: exit $rc: $(cat "$TMPD/err")"
grep -qx "corun: no-such-scenario: no such file here, nor in .*/scenarios/ (as no-such-scenario or no-such-scenario.cfg)" "$TMPD/err" ||
    fail "run no-such-scenario: where it looked: $(cat "$TMPD/err")"
# A misspelt name gets the closest one corun ships, among scenarios and (for check) lessons;
# the beginning of several names gets them all.
while IFS='|' read -r args want; do
    set +e
    ( cd "$TMPD/cwd" && "$CORUN" $args ) >/dev/null 2>"$TMPD/err"; rc=$?
    set -e
    [ $rc -eq 2 ] && grep -q "^corun: .*; did you mean $want?$" "$TMPD/err" || fail "$args: exit $rc: $(cat "$TMPD/err")"
done <<'EOF'
run defualt|default
check evicetd|evicted
suite check hsm-pair|hsm-pairs
run accel-gmm|accel-gmm-nn or accel-gmm-bfsex
check ev|evicted or even-split
EOF
# help on a misspelt command or topic names the closest one.
for pair in "lesons|lesson" "predictrs|predictors" "sceanrio|scenario"; do
    set +e
    "$CORUN" help "${pair%|*}" >/dev/null 2>"$TMPD/err"; rc=$?
    set -e
    [ $rc -eq 2 ] && grep -q "^corun help: no help on '${pair%|*}' (did you mean '${pair#*|}'?); topics: " "$TMPD/err" ||
        fail "help ${pair%|*}: exit $rc: $(cat "$TMPD/err")"
done
# (`help predictor` is the setting's, which points at the list.)
"$CORUN" help predictor | grep -q '(`corun help predictors` lists them)' ||
    fail "help predictor: $("$CORUN" help predictor 2>&1)"
# `runs` and `show` say what was wrong, not only how to call them (nothing here opens a catalog
# or a file: the arguments are refused first). Only the one-letter options a help names are
# taken (`run -j 2` was --json, then "unexpected second argument '2'"; `sweep -e` was --epochs,
# `solo -s` --seed, `sweep -s` --shard), and every command names the option nearest a
# mistyped one (tui, lesson, replay, show and plot named none; `suite --json` said "expected
# check or list"). `reproduce --list hsm` exited 2 with its usage alone, and `--list --json`
# dropped --json unsaid; bench --compare --gpu advised `--args "--set gpu=P"`, which run
# refuses; dram-trace named no command before a trace it could not read, as bench does.
while IFS='|' read -r args want; do
    set +e
    "$CORUN" $args 2>"$TMPD/err"; rc=$?
    set -e
    [ $rc -eq 2 ] && grep -qxF "$want" "$TMPD/err" || fail "$args: exit $rc: $(cat "$TMPD/err")"
done <<'EOF'
runs --catalog|corun: runs: --catalog needs a value (`corun runs --help` says which)
bench --compare|corun: bench: --compare needs a value (`corun bench --help` says which)
runs --frob list|corun: runs: unknown option '--frob' (`corun runs --help` lists its options)
runs lsit|corun: runs: 'lsit': expected list, show, query or add
runs show|corun: runs show: expected a run ID after it
runs show abc|corun: runs show: 'abc' is no run ID: expected N (a spatial run) or aN (an accelerator run), N from 1 to 4294967295, as `corun runs list` shows them
runs show a0|corun: runs show: 'a0' is no run ID: expected N (a spatial run) or aN (an accelerator run), N from 1 to 4294967295, as `corun runs list` shows them
runs query select 1|corun: runs query: unexpected argument '1' (quote an SQL query with spaces)
branch x.h5 y|corun: branch: EPOCH: expected a whole number from 0 to 1000000, got 'y'
branch x.h5 +1|corun: branch: EPOCH: expected a whole number from 0 to 1000000, got '+1'
runs list --timeout x|corun: --timeout: expected a whole number from 0 to 86400, got 'x'
show x.h5 --epoch|corun: show: unknown option '--epoch'
show -|corun: show: unknown option '-'
replay -|corun: replay: unknown option '-'
check --json x.cfg|corun: check: unknown option '--json'
run x.cfg --out|corun: run: --out needs a value (`corun run --help` says which)
help solo extra|corun help: 'extra' is not a word solo takes (`corun help solo` says what it does)
help reproduce nosuch|corun help: reproduce has no experiment 'nosuch' (`corun reproduce --list` lists them)
run x.cfg -j 2|corun: run: unknown option '-j' (`corun run --help` lists its options)
sweep x.cfg -e 1|corun: sweep: unknown option '-e' (`corun sweep --help` lists its options)
solo x -s 2|corun: solo: unknown option '-s' (`corun solo --help` lists its options)
train hsm -o m.cfg|corun: train: unknown option '-o' (`corun train --help` lists its options)
reproduce hsm -a|corun: reproduce: unknown option '-a' (`corun reproduce --help` lists its options)
reproduce --list hsm|corun: reproduce: --list lists every experiment as text; it takes no 'hsm'
reproduce --list --json|corun: reproduce: --list lists every experiment as text; it takes no '--json'
bench --compare /nonexistent --gpu k40|corun: bench: --compare times scenarios; --gpu and --traces do not apply (name the preset in a SCENARIO file's gpu setting; --args "--set gpu.K=V" changes one of its settings)
dram-trace /nonexistent/x.trace|corun: dram-trace: /nonexistent/x.trace: cannot open: No such file or directory
tui --catalg c.db|corun: tui: unknown option '--catalg' (did you mean --catalog?)
lesson list --them projector|corun: lesson: unknown option '--them' (did you mean --theme?)
show x.h5 --jsn|corun: show: unknown option '--jsn' (did you mean --json?)
plot x.h5 --ot p.svg|corun: plot: unknown option '--ot' (did you mean --out?)
suite --json list|corun: suite: unknown option '--json'
EOF

# `runs` takes its options after the verb too (a new user's `corun runs list --catalog F`
# was refused once).
cp "$TMPD/nonexdg/corun/catalog.db" "$TMPD/after.db" # a catalog with no runs
"$CORUN" runs list --catalog "$TMPD/after.db" >"$TMPD/out" || fail "runs list --catalog F"
grep -q "no runs in $TMPD/after.db yet" "$TMPD/out" || fail "runs list --catalog F: $(cat "$TMPD/out")"
[ "$("$CORUN" runs query --timeout 5 'SELECT 6*7' --catalog "$TMPD/after.db")" = "6*7
42" ] || fail "runs query with options after the verb"
# A value holding a tab, a line end or a backslash keeps its row one line of its fields.
"$CORUN" runs query --catalog "$TMPD/after.db" \
    "SELECT 'a' || char(9) || 'b' || char(10) || 'c\\d' AS x, 2 AS y" >"$TMPD/out" ||
    fail "runs query of a tab and a line end"
[ "$(cat "$TMPD/out")" = "$(printf 'x\ty\na\\tb\\nc\\\\d\t2')" ] ||
    fail "runs query of a tab and a line end: $(cat -A "$TMPD/out")"

# `corun --help` lists the scenarios corun ships; each name it gives is one that check takes.
names=$("$CORUN" --help | sed -n '/^A SCENARIO may also be named/,$p' | tr '\n' ' ' | sed 's/.*scenarios): //; s/\.[[:space:]]*$//; s/,//g')
# Every one, in order: the scenarios' .cfg files, then the studies'.
want=$(cd "$top_srcdir/scenarios" && { LC_ALL=C ls *.cfg; LC_ALL=C ls studies/*.cfg; } | sed 's/\.cfg$//' | tr '\n' ' ')
[ "$(echo $names)" = "$(echo $want)" ] || fail "shipped scenarios: '$names', expected '$want'"
mkdir -p "$TMPD/empty"
for n in $names; do
    [ "$(cd "$TMPD/empty" && "$CORUN" check "$n" 2>/dev/null)" = ok ] || fail "check $n (listed by --help)"
done

# A CORUN_DATADIR that names no directory is said once, before what it makes fail.
set +e
CORUN_DATADIR="$TMPD/no-such-dir" "$CORUN" check default >/dev/null 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && head -1 "$TMPD/err" | grep -q "^corun: note: CORUN_DATADIR=$TMPD/no-such-dir is not a directory" ||
    fail "a missing CORUN_DATADIR: exit $rc: $(cat "$TMPD/err")"
[ -z "$(CORUN_DATADIR="$TMPD/no-such-dir" "$CORUN" --version 2>&1 >/dev/null)" ] || fail "the note on --version"
# Policy labels a shell would read as redirections are shown quoted.
"$CORUN" help reproduce themis --fairness | grep -qF "(quoted in the shell: --policies 'hp<.5,.5>,themis<.2,.8>')" ||
    fail "help reproduce themis --fairness: no quoted example"
"$CORUN" help reproduce hsm --fairness | grep -q "quoted in the shell" && fail "a quoting note for labels that need none"
# --slurm when sbatch fails (a stand-in here): nothing submitted and nothing left behind, so
# the same command can be run again once Slurm answers (it said "holds a job already", and
# each try left a job directory in the data directory).
mkdir -p "$TMPD/fakebin"
printf '#!/bin/sh\necho "sbatch: error: no controller" >&2\nexit 1\n' >"$TMPD/fakebin/sbatch"
chmod +x "$TMPD/fakebin/sbatch"
for try in 1 2; do
    set +e
    PATH="$TMPD/fakebin:$PATH" XDG_DATA_HOME="$TMPD/xdg" "$CORUN" sweep \
        "$top_srcdir/tests/data/good/tiny-suite.cfg" --slurm --shards 2 --slurm-dir "$TMPD/sd" \
        >/dev/null 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc = 1 ] && grep -q "sbatch failed (exit status 1, its message is above); nothing was submitted" \
        "$TMPD/err" || fail "--slurm-dir, sbatch failing, try $try: exit $rc $(cat "$TMPD/err")"
    [ -z "$(ls -A "$TMPD/sd")" ] || fail "--slurm-dir, sbatch failing: left $(ls "$TMPD/sd")"
done
# A --slurm-dir holding a file of the user's of a name the job writes is refused, and it is
# left as it was: a task.sh there was written over by the job's, then removed when sbatch
# failed.
mkdir "$TMPD/sd2"
echo mine >"$TMPD/sd2/task.sh"
set +e
PATH="$TMPD/fakebin:$PATH" XDG_DATA_HOME="$TMPD/xdg" "$CORUN" sweep \
    "$top_srcdir/tests/data/good/tiny-suite.cfg" --slurm --shards 2 --slurm-dir "$TMPD/sd2" \
    >/dev/null 2>"$TMPD/err"
rc=$?
set -e
[ $rc = 2 ] && grep -qx "corun: --slurm-dir $TMPD/sd2 holds task.sh already, a name the job writes there (job, task.sh, shard-K.\*, results.journal); give another directory, or move it" \
    "$TMPD/err" && [ "$(cat "$TMPD/sd2/task.sh")" = mine ] && [ "$(ls -A "$TMPD/sd2")" = task.sh ] ||
    fail "--slurm-dir with a file of the user's: exit $rc: $(cat "$TMPD/err"; ls -A "$TMPD/sd2")"
set +e
PATH="$TMPD/fakebin:$PATH" XDG_DATA_HOME="$TMPD/xdg" "$CORUN" sweep \
    "$top_srcdir/tests/data/good/tiny-suite.cfg" --slurm --shards 2 >/dev/null 2>"$TMPD/err"
rc=$?
set -e
[ $rc = 1 ] && [ -z "$(ls -A "$TMPD/xdg/corun/slurm" 2>/dev/null)" ] ||
    fail "--slurm, sbatch failing: exit $rc, left $(ls "$TMPD/xdg/corun/slurm") $(cat "$TMPD/err")"
# A seed takes the scenario's range everywhere: --seed took only 32 bits (a file's seed of 5e9
# could not be given again on the command line), and --set seed= past 2^53 was compared as a
# double and named in one ("got 9.22337e+18").
"$CORUN" run default --epochs 1 --set epoch_cycles=20000 --seed 5000000000 2>/dev/null |
    head -1 | grep -q ", seed 5000000000$" || fail "run --seed 5000000000 was not taken"
expect_bad "--seed past the range" \
    "^corun: --seed: expected a whole number from 0 to 1000000000000000000, got '1000000000000000001'$" \
    "$CORUN" run default --epochs 1 --seed 1000000000000000001
# A number with a blank or a sign before its digits is refused, as one with a blank after is
# (" 7" and "+7" were taken, "7 " refused).
expect_bad "--seed with a blank" "^corun: --seed: expected a whole number from 0 to 1000000000000000000, got ' 7'$" \
    "$CORUN" run default --epochs 1 --seed " 7"
expect_bad "--seed with a sign" "^corun: --seed: expected a whole number from 0 to 1000000000000000000, got '+7'$" \
    "$CORUN" run default --epochs 1 --seed +7
expect_bad "--set seed past the range" \
    "^corun: run: --set: seed: expected an integer from 0 to 1000000000000000000, got 9223372036854775807$" \
    "$CORUN" run default --epochs 1 --set seed=9223372036854775807
# Output that cannot be written (a full disk: /dev/full) is a failure, said on stderr; the
# exit status was 0, and `corun ... --json > FILE` left FILE empty unsaid.
if [ -c /dev/full ]; then
    for args in "kernels list" "--version" "help solo" "dram-trace $TMPD/one.trace --json"; do
        [ "$args" = "${args#dram-trace}" ] || printf '0x40 R\n' >"$TMPD/one.trace"
        set +e
        # shellcheck disable=SC2086 # the words are the arguments
        "$CORUN" $args >/dev/full 2>"$TMPD/err"
        rc=$?
        set -e
        [ $rc -eq 1 ] && grep -qx 'corun: cannot write to standard output: No space left on device; its output is incomplete' "$TMPD/err" ||
            fail "corun $args >/dev/full: exit $rc: $(cat "$TMPD/err")"
    done
fi
# HDF5 linked from its static archive (configure's default where it links) brings none of the
# shared library's dependencies: libcurl and its TLS, Kerberos and LDAP stack, 28 libraries
# loaded at every start, are gone (an HDF5 call that needs them would bring them back).
if grep -q '^HDF5_LIBS = .*-Bstatic -lhdf5' "$top_builddir/Makefile" && command -v ldd >/dev/null; then
    libs=$(ldd "$CORUN") || fail "ldd $CORUN: exit $?"
    ! grep -Eq 'libhdf5|libcurl|libssl|libgnutls|libkrb5|libldap' <<<"$libs" ||
        fail "corun linked HDF5 statically, yet loads: $(grep -E 'hdf5|curl|ssl|gnutls|krb5|ldap' <<<"$libs" | tr -s ' \t\n' ' ')"
fi
echo "cli basics: ok"
