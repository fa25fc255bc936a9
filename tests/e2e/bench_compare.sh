#!/usr/bin/env bash
# `corun bench --compare OTHER`: two binaries on the same scenario give a speed-up column and
# say whether their outputs are identical; a binary whose output differs is flagged, as is one
# whose output varies from run to run; one that fails is reported with its last words, and bad
# options are refused with exit status 2.
. "$(dirname "$0")/../lib.sh"
short=(--runs 1 --epochs 1 --args "--set epoch_cycles=20000")
sc="$top_srcdir/scenarios/default.cfg"

# The scenario by its name (what `run` takes): both binaries are given the file it names.
(cd "$TMPD" && "$CORUN" bench --compare "$CORUN" "${short[@]}" --other-args "--set epoch_cycles=20000" default) \
    >"$TMPD/out" 2>"$TMPD/err" || fail "bench --compare itself: $(cat "$TMPD/err")"
grep -q '^corun: default: no such file here; using .*/scenarios/default.cfg$' "$TMPD/err" ||
    fail "default by name: $(cat "$TMPD/err")"
grep -q 'median of 1 run each' "$TMPD/out" || fail "heading: $(cat "$TMPD/out")"
grep -Eq '^default\.cfg +0\.02 M +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.]+-[0-9.]+ +identical$' "$TMPD/out" ||
    fail "row against itself: $(cat "$TMPD/out")"
# One round: its ratio is the speed-up, so the range is that one number twice.
awk '/^default\.cfg/ { sub(/x$/, "", $6); split($7, r, "-"); if (r[1] != r[2] || r[1] != $6) exit 1 }' \
    "$TMPD/out" || fail "one round's range: $(cat "$TMPD/out")"
grep -q '^  other .*with --set epoch_cycles=20000$' "$TMPD/out" || fail "heading: $(cat "$TMPD/out")"

# --threads compared by wall time, every run starting with empty caches: same output.
"$CORUN" bench --compare "$CORUN" "${short[@]}" --wall --cold --args "--set epoch_cycles=20000 --threads 2" \
    --other-args "--set epoch_cycles=20000 --threads 1" "$sc" >"$TMPD/out" || fail "bench --wall --cold"
grep -q '^Wall seconds per simulated M core cycles.*each with empty private-mode caches$' "$TMPD/out" ||
    fail "--wall --cold heading: $(cat "$TMPD/out")"
grep -Eq '^default\.cfg .* identical$' "$TMPD/out" || fail "--threads 2 against 1: $(cat "$TMPD/out")"

# An accelerator scenario runs to its end (`run` refuses --epochs there): a row, identical.
cat >"$TMPD/accel.cfg" <<'EOF'
mode = "accelerator";
name = "one short query stream";
gpu = "k40";
applications = ( { name = "nn"; role = "ls"; qos_target = 1.5; queries = 3; } );
EOF
"$CORUN" bench --compare "$CORUN" --runs 1 "$TMPD/accel.cfg" >"$TMPD/out" 2>"$TMPD/err" ||
    fail "bench --compare, accelerator scenario: $(cat "$TMPD/err")"
grep -Eq '^accel\.cfg +[0-9.]+ M .* identical$' "$TMPD/out" || fail "accelerator row: $(cat "$TMPD/out")"

# The same binary with another seed: its output is not the same.
"$CORUN" bench --compare "$CORUN" "${short[@]}" --other-args "--set epoch_cycles=20000 --seed 2" \
    "$sc" >"$TMPD/out" || fail "bench --compare, other seed"
grep -Eq '^default\.cfg .* DIFFER \(byte [0-9]+\)$' "$TMPD/out" || fail "seed 2 not flagged: $(cat "$TMPD/out")"

# A fake OTHER binary NAME (its --version says VERSION, then it runs BODY) against which
# bench --compare must exit STATUS; its stderr is left in $TMPD/err.
compare_fake() { # NAME BODY [VERSION [STATUS]]
    printf '#!/bin/sh\n[ "$1" = --version ] && { echo "%s"; exit 0; }\n%s\n' \
        "${3:-corun 0 ($1)}" "$2" >"$TMPD/$1"
    chmod +x "$TMPD/$1"
    set +e
    "$CORUN" bench --compare "$TMPD/$1" "${short[@]}" "$sc" >"$TMPD/out" 2>"$TMPD/err"
    local rc=$?
    set -e
    [ $rc -eq "${4:-1}" ] || fail "$1 binary: exit $rc, expected ${4:-1}"
}

# A binary that is not corun by its --version is refused before anything is printed or run.
compare_fake impostor 'touch "$0.ran"' 'impostor 1.0' 2
[ "$(cat "$TMPD/err")" = "corun: bench: --compare $TMPD/impostor: not a corun build (its --version: 'impostor 1.0'); expected 'corun VERSION (simulator ID)'" ] ||
    fail "impostor: $(cat "$TMPD/err")"
[ ! -s "$TMPD/out" ] || fail "impostor: printed $(cat "$TMPD/out")"
[ ! -e "$TMPD/impostor.ran" ] || fail "impostor: run as if it were corun"

# A binary that fails: its stderr is shown, at most its last four lines, and the exit status is 1.
compare_fake broken $'echo "broken: out of luck" >&2\nexit 3'
grep -q 'other binary .*broken failed on .*default.cfg (exit 3)' "$TMPD/err" || fail "$(cat "$TMPD/err")"
[ "$(grep '^ ' "$TMPD/err")" = '    broken: out of luck' ] || fail "last words: $(cat "$TMPD/err")"
compare_fake wordy $'for i in 1 2 3 4 5 6; do echo "wordy: line $i" >&2; done\nexit 3'
[ "$(grep '^ ' "$TMPD/err")" = "$(printf '    wordy: line %s\n' 3 4 5 6)" ] ||
    fail "last words, expected the last four lines: $(cat "$TMPD/err")"

# A binary whose output changes from run to run (every other run of it takes another seed) is
# flagged as varying; its first timed run is the default seed's, the same as this binary's.
cat >"$TMPD/varies" <<EOF
#!/bin/sh
n=\$(cat "$TMPD/varies.n" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$TMPD/varies.n"
[ "\$1" = run ] && [ \$((n % 2)) -eq 1 ] && exec "$CORUN" "\$@" --seed 2
exec "$CORUN" "\$@"
EOF
chmod +x "$TMPD/varies"
"$CORUN" bench --compare "$TMPD/varies" --runs 2 --epochs 1 --args "--set epoch_cycles=20000" \
    --other-args "--set epoch_cycles=20000" "$sc" >"$TMPD/out" || fail "bench --compare, varying binary"
grep -Eq '^default\.cfg .* identical, other varies$' "$TMPD/out" || fail "varying binary: $(cat "$TMPD/out")"

# A binary whose --version claims corun but that exits 0 printing no corun document: refused,
# exit 1, after its first timed run, not timed as if it simulated nothing in no time.
compare_fake quiet 'exit 0'
grep -q "other binary .*quiet printed no \`run --json\` document with simulated cycles on .*default.cfg (its --version: 'corun 0 (quiet)'); expected a corun build" \
    "$TMPD/err" || fail "quiet binary: $(cat "$TMPD/err")"
grep -q '^default\.cfg' "$TMPD/out" && fail "quiet binary got a row: $(cat "$TMPD/out")"

# Sides that simulate different lengths are each timed per their own cycles, and the row says so.
"$CORUN" bench --compare "$CORUN" "${short[@]}" --other-args "--set epoch_cycles=40000" "$sc" \
    >"$TMPD/out" || fail "bench --compare, other length"
grep -Eq '^default\.cfg +0\.02 M .* DIFFER \(byte [0-9]+\), other simulated 0\.04 M$' "$TMPD/out" ||
    fail "other length: $(cat "$TMPD/out")"

# Whether the process whose pid is in FILE has ended (gone, or a zombie left to init) within
# two seconds: a binary's process group is killed with it, nothing of it left running.
ended() { # FILE
    local pid i
    pid=$(cat "$1")
    for i in $(seq 20); do
        [ -r "/proc/$pid/stat" ] && ! grep -q ') Z ' "/proc/$pid/stat" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}

# A binary that never answers --version is refused after CORUN_BENCH_PROBE_SECONDS (default
# 5), exit 2, and what it started is killed with it (corun waited on it forever).
printf '#!/bin/sh\nsleep 30 &\necho $! >"%s"\nwait\n' "$TMPD/mute.child" >"$TMPD/mute"
chmod +x "$TMPD/mute"
set +e
CORUN_BENCH_PROBE_SECONDS=1 timeout 20 "$CORUN" bench --compare "$TMPD/mute" "${short[@]}" "$sc" \
    >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "mute binary: exit $rc, expected 2: $(cat "$TMPD/err")"
[ "$(cat "$TMPD/err")" = "corun: bench: --compare $TMPD/mute: \`$TMPD/mute --version\` did not answer within 1 s (CORUN_BENCH_PROBE_SECONDS sets the limit), and was killed; expected a corun build" ] ||
    fail "mute binary: $(cat "$TMPD/err")"
[ ! -s "$TMPD/out" ] || fail "mute binary: printed $(cat "$TMPD/out")"
ended "$TMPD/mute.child" || fail "mute binary: its child still runs"

# A binary that answers --version but whose runs never end: each run is given 20 times this
# binary's time on it plus CORUN_BENCH_MARGIN_SECONDS (default 60), then it is killed and
# reported as failing, exit 1.
compare_hang() { # ENV...: bench --compare the hanging binary in the background, pid in $bg
    printf '#!/bin/sh\n[ "$1" = --version ] && { echo "corun 0 (hang)"; exit 0; }\nsleep 30 &\necho $! >"%s"\nwait\n' \
        "$TMPD/hang.child" >"$TMPD/hang"
    chmod +x "$TMPD/hang"
    rm -f "$TMPD/hang.child"
    env "$@" timeout 60 "$CORUN" bench --compare "$TMPD/hang" --cold "${short[@]}" "$sc" \
        >"$TMPD/out" 2>"$TMPD/err" &
    bg=$!
}
compare_hang CORUN_BENCH_MARGIN_SECONDS=1
set +e
wait $bg
rc=$?
set -e
[ $rc -eq 1 ] || fail "hanging binary: exit $rc, expected 1: $(cat "$TMPD/err")"
grep -Eq "^corun: bench: other binary $TMPD/hang did not finish on $sc within [0-9.]+ s \(20 times this binary's [0-9.]+ s on the same run, plus 1 s: CORUN_BENCH_MARGIN_SECONDS sets them\), and was killed; its last words:$" \
    "$TMPD/err" || fail "hanging binary: $(cat "$TMPD/err")"
ended "$TMPD/hang.child" || fail "hanging binary: its child still runs"

# SIGTERM to corun while the other binary runs: its run is killed with corun, which ends as the
# signal does (they ran on, orphaned).
compare_hang
for i in $(seq 300); do [ -s "$TMPD/hang.child" ] && break; sleep 0.1; done
[ -s "$TMPD/hang.child" ] || fail "the hanging binary never ran: $(cat "$TMPD/err")"
kill -TERM $bg
set +e
wait $bg
rc=$?
set -e
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc, expected 143 (SIGTERM): $(cat "$TMPD/err")"
grep -q "^corun: bench: stopped by SIGTERM; the run of $TMPD/hang on $sc was killed$" "$TMPD/err" ||
    fail "SIGTERM: $(cat "$TMPD/err")"
ended "$TMPD/hang.child" || fail "SIGTERM: the other binary's child still runs"

expect_bad() { # MESSAGE ARGS...
    local want=$1
    shift
    set +e
    "$CORUN" bench "$@" >"$TMPD/out" 2>"$TMPD/err"
    local rc=$?
    set -e
    [ $rc -eq 2 ] || fail "bench $*: exit $rc, expected 2"
    grep -qF -- "$want" "$TMPD/err" || fail "bench $*: want '$want', got '$(cat "$TMPD/err")'"
}
expect_bad "--compare $TMPD/none: No such file or directory (expected an executable corun binary)" \
    --compare "$TMPD/none"
expect_bad "--compare $TMPD: is a directory (expected an executable corun binary)" --compare "$TMPD"
expect_bad "go with --compare OTHER" --runs 3
# What this binary's `run` refuses in --args, and an --other-datadir that is not one, are bad
# input said before the heading or any run (the runs failed, exit 1).
expect_bad "corun: run: unknown option '--bogus'" --compare "$CORUN" --args --bogus "$sc"
grep -qF "corun: bench: --args \"--bogus\": this binary's \`run $sc\` refuses them (above); expected options of \`corun run\`" \
    "$TMPD/err" || fail "--args --bogus: $(cat "$TMPD/err")"
[ ! -s "$TMPD/out" ] || fail "--args --bogus: printed $(cat "$TMPD/out")"
expect_bad "--set: gpu.sms: expected" --compare "$CORUN" --args "--set gpu.sms=0" "$sc"
[ ! -s "$TMPD/out" ] || fail "--args --set gpu.sms=0: printed $(cat "$TMPD/out")"
# --out in either side's arguments: the first run wrote the file and the second failed on it
# (exit 1, the file left behind); refused before anything runs.
(cd "$TMPD" && expect_bad 'corun: bench: --args "--out b.h5": --out writes a run file' \
    --compare "$CORUN" --runs 1 --epochs 1 --args "--out b.h5" "$sc")
[ ! -e "$TMPD/b.h5" ] || fail "bench --args --out: left $TMPD/b.h5"
(cd "$TMPD" && expect_bad 'corun: bench: --other-args "-ob.h5": -ob.h5 writes a run file' \
    --compare "$CORUN" --runs 1 --epochs 1 --other-args "-ob.h5" "$sc")
[ ! -e "$TMPD/b.h5" ] || fail "bench --other-args -o: left $TMPD/b.h5"
expect_bad "--other-datadir $TMPD/none: No such file or directory (expected the other binary's data directory, holding its data/)" \
    --compare "$CORUN" --other-datadir "$TMPD/none" "$sc"
expect_bad "--other-datadir $TMPD: it holds no data/ directory" --compare "$CORUN" --other-datadir "$TMPD" "$sc"
expect_bad "scenarios are given only with --compare OTHER" "$sc"
expect_bad "--runs: expected a whole number from 1 to 99, got '0'" --compare "$CORUN" --runs 0
expect_bad "$TMPD/nope.cfg: No such file or directory (expected a scenario file)" \
    --compare "$CORUN" "$TMPD/nope.cfg"
expect_bad "--gpu and --traces do not apply" --compare "$CORUN" --gpu gddr5_40
# A scenario check refuses is refused before timing (it failed in its first run, exit 1).
printf 'name = "z";\ngpu = "hbm80";\nepochs = 0;\nkernels = ( { name = "stream"; } );\n' >"$TMPD/zero.cfg"
expect_bad "zero.cfg:3: epochs: expected an integer from 1" --compare "$CORUN" "$TMPD/zero.cfg"
echo ok
