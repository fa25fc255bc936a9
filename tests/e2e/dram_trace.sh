#!/usr/bin/env bash
# `corun dram-trace`: a generated trace gives a sane report (text and JSON, the table's every
# number the JSON's in its units) and, on a terminal, a progress bar; every bad input (unknown
# preset, bad option values, an unparsable line, an empty or missing trace) gets its message
# and exit status 2.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
# A sequential and a random stream of 64 B reads, as tools/gen_dram_traces.py makes them (the
# tool itself is checked below).
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "0x%x R\n", i * 64 }' >"$TMPD/stream.trace"
awk 'BEGIN { srand(7); for (i = 0; i < 20000; i++) printf "0x%x R\n", int(rand() * 67108864) * 64 }' \
    >"$TMPD/random.trace"

"$CORUN" dram-trace "$TMPD/stream.trace" --gpu hbm80 >"$TMPD/out"
grep -q '^trace .*20000 requests (20000 reads, 0 writes) of 128 B' "$TMPD/out" || fail "trace line: $(cat "$TMPD/out")"
grep -q '^bandwidth .* GB/s, .* % of peak' "$TMPD/out" || fail "bandwidth line"
printf '0x40 R\n' >"$TMPD/one.trace"
"$CORUN" dram-trace "$TMPD/one.trace" >"$TMPD/one" &&
    grep -q '^trace .*: 1 request (1 read, 0 writes) of 128 B$' "$TMPD/one" ||
    fail "one request: $(head -1 "$TMPD/one")"
# Its time under a microsecond and its speed under 0.01 M/s read 0.0 us and 0.00 M: they are
# given in ns and in requests.
grep -Eq '^time +[1-9][0-9]* memory cycles to the last completion \([1-9][0-9]*\.[0-9] ns simulated\)$' \
    "$TMPD/one" || fail "one request's time: $(cat "$TMPD/one")"
grep -Eq '^speed +[1-9][0-9]* requests per wall second \(parse ' "$TMPD/one" ||
    fail "one request's speed: $(cat "$TMPD/one")"
# Its parse and simulation times read "0.000 s": under a millisecond they are given in us or ns,
# never as 0.
python3 - "$TMPD/one" <<'PY' || fail "one request's wall times: $(grep '^speed' "$TMPD/one")"
import re, sys
speed = next(l for l in open(sys.argv[1]) if l.startswith("speed "))
m = re.search(r"\(parse ([0-9.]+) (s|us|ns), simulate ([0-9.]+) (s|us|ns)\)$", speed)
assert m, speed
for value, unit in ((float(m[1]), m[2]), (float(m[3]), m[4])):
    assert value > 0 and (unit == "ns" and value < 1000 or unit == "us" and 1 <= value < 1000 or
                          unit == "s" and value >= 0.001), speed
PY
# So do its JSON's: printed with six decimals they kept a microsecond's two digits or none
# (0.000012, 0.000000), and their requests per second was not the requests over them.
"$CORUN" dram-trace "$TMPD/one.trace" --json >"$TMPD/one.json" || fail "one request --json"
python3 - "$TMPD/one.json" <<'PY' || fail "one request's JSON times: $(cat "$TMPD/one.json")"
import json, sys
r = json.load(open(sys.argv[1]))
p, s = r["parse_seconds"], r["simulate_seconds"]
assert p > 0 and s > 0, r
assert abs(r["requests_per_second"] * (p + s) - r["requests"]) <= 1e-6 * r["requests"], r
PY

j0=$(date +%s.%N)
json=$("$CORUN" dram-trace "$TMPD/random.trace" --gpu hbm80 --json --mapping linear)
j1=$(date +%s.%N)
python3 - "$json" <<'PY' || fail "JSON: $json"
import json, sys
r = json.loads(sys.argv[1])
assert r["requests"] == 20000, r
assert 0 < r["utilization_pct"] < 100, r
assert r["row_hits"] + r["row_misses"] + r["row_conflicts"] == r["requests"], r
assert r["activates"] >= r["row_misses"] + r["row_conflicts"], r
PY
# The table says what the JSON says, in its units: the preset's memory (banks = groups x banks
# per group), cycles and microseconds at its clock, the row hits' share, the read latency in
# nanoseconds, and a speed that is the requests over the parse and simulation times it prints;
# those times fit in the command's own wall time.
t0=$(date +%s.%N)
"$CORUN" dram-trace "$TMPD/random.trace" --gpu hbm80 --mapping linear >"$TMPD/text"
t1=$(date +%s.%N)
python3 - "$json" "$TMPD/text" "$t0" "$t1" "$j0" "$j1" <<'PY' || fail "the table disagrees with the JSON: $(cat "$TMPD/text")"
import json, re, sys
r = json.loads(sys.argv[1])
text = open(sys.argv[2]).read()
wall = float(sys.argv[4]) - float(sys.argv[3])
json_wall = float(sys.argv[6]) - float(sys.argv[5])
def line(head):
    return next(l for l in text.splitlines() if l.startswith(head))
mhz = 440.0
assert line("memory ") == "memory         hbm80: 32 channels x 16 banks, 440 MHz, linear mapping, peak %.1f GB/s" % r["peak_gbs"], line("memory")
assert line("time ") == "time           %d memory cycles to the last completion (%.1f us simulated)" % (
    r["memory_cycles"], r["memory_cycles"] / mhz), line("time")
assert line("bandwidth ") == "bandwidth      %.1f GB/s, %.1f %% of peak" % (r["bandwidth_gbs"], r["utilization_pct"]), line("bandwidth")
assert line("row buffer ") == "row buffer     %d hits (%.1f %%), %d misses, %d conflicts" % (
    r["row_hits"], 100.0 * r["row_hits"] / r["requests"], r["row_misses"], r["row_conflicts"]), line("row buffer")
assert line("commands ") == "commands       %d activates, %d refreshes" % (r["activates"], r["refreshes"]), line("commands")
assert line("read latency ") == "read latency   %.1f memory cycles mean (%.1f ns); queueing %.1f cycles mean" % (
    r["mean_read_latency_cycles"], r["mean_read_latency_cycles"] * 1e3 / mhz, r["mean_queue_cycles"]), line("read latency")
m = re.fullmatch(r"speed +([0-9.]+) M requests per wall second \(parse ([0-9.]+) (s|us|ns), simulate ([0-9.]+) (s|us|ns)\)", line("speed "))
assert m, line("speed")
unit = {"s": 1, "us": 1e-6, "ns": 1e-9}
speed, parse, sim = float(m[1]), float(m[2]) * unit[m[3]], float(m[4]) * unit[m[5]]
assert parse + sim <= wall, (parse, sim, wall)
lo, hi = r["requests"] / (parse + sim + 0.001) / 1e6, r["requests"] / max(parse + sim - 0.001, 1e-9) / 1e6
assert lo - 0.005 <= speed <= hi + 0.005, (speed, lo, hi)
# The JSON's own: its times within the test's, its speed theirs.
assert 0 < r["parse_seconds"] and 0 < r["simulate_seconds"] and r["parse_seconds"] + r["simulate_seconds"] <= json_wall, r
assert abs(r["requests_per_second"] - r["requests"] / (r["parse_seconds"] + r["simulate_seconds"])) <= 0.001 * r["requests_per_second"], r
PY
# On a terminal (script, from Debian's always-installed bsdutils) a progress bar on stderr
# rises to 100 % while the requests go in; the JSON is the one printed without a terminal.
if command -v script >/dev/null; then
    script -qec "\"$CORUN\" dram-trace \"$TMPD/random.trace\" --json --mapping linear" /dev/null |
        tr '\r' '\n' >"$TMPD/tty" || fail "dram-trace on a terminal: exit $?"
    [ "$(grep -c '^\[#*  *\] *[0-9]*% .*random.trace$' "$TMPD/tty")" -ge 10 ] &&
        grep -q '^\[##############################\] 100% .*random.trace$' "$TMPD/tty" ||
        fail "dram-trace on a terminal: no progress bar: $(cat "$TMPD/tty")"
    strip() { sed 's/"parse_seconds.*//'; }
    [ "$(grep '^{' "$TMPD/tty" | strip)" = "$(printf '%s\n' "$json" | strip)" ] ||
        fail "dram-trace on a terminal measured otherwise: $(grep '^{' "$TMPD/tty")"
fi

expect_bad() { # MESSAGE ARGS...
    local want=$1
    shift
    set +e
    "$CORUN" dram-trace "$@" >"$TMPD/out" 2>"$TMPD/err"
    local rc=$?
    set -e
    [ $rc -eq 2 ] || fail "dram-trace $*: exit $rc, expected 2"
    grep -qF -- "$want" "$TMPD/err" || fail "dram-trace $*: want '$want', got '$(cat "$TMPD/err")'"
}
expect_bad 'corun: --gpu: unknown GPU preset "hbm8"; known: gddr5_40, hbm80, k40, smqos24, themis60 (did you mean hbm80?)' \
    "$TMPD/stream.trace" --gpu hbm8
expect_bad "--request-bytes: expected a whole number from 32 to 1024, got 'lots'" \
    "$TMPD/stream.trace" --request-bytes lots
# A request that does not divide the row names the option (it named only the preset's row),
# before the trace is read (a bad trace is not what it reports).
printf 'hello\n' >"$TMPD/junk.trace"
expect_bad "corun: --request-bytes 96: expected a divisor of hbm80's DRAM row of 2048 bytes" \
    "$TMPD/junk.trace" --request-bytes 96
expect_bad "--mapping: expected linear or hashed, got 'xor'" "$TMPD/stream.trace" --mapping xor
expect_bad "usage: corun dram-trace" --gpu hbm80
printf '0x40 R\n0x80 R\nhello\n' >"$TMPD/bad.trace"
expect_bad "$TMPD/bad.trace:3: expected" "$TMPD/bad.trace"
printf '# nothing\n\n' >"$TMPD/empty.trace"
expect_bad "$TMPD/empty.trace: the trace holds no requests" "$TMPD/empty.trace"
expect_bad "$TMPD/none.trace: cannot open" "$TMPD/none.trace"

# The project's own trace tool: its four patterns parse, streams are sequential, the same seed
# gives the same trace, and the sequential stream keeps rows open far more than the random one.
gen="$top_srcdir/tools/gen_dram_traces.py"
python3 "$gen" -n 5000 -o "$TMPD/gen" --write-frac 0.25 >"$TMPD/gen.out" || fail "gen_dram_traces.py"
for p in stream random mix mix2k; do
    [ "$(wc -l <"$TMPD/gen/$p.trace")" = 5000 ] || fail "$p.trace: not 5000 requests"
    "$CORUN" dram-trace "$TMPD/gen/$p.trace" --json >"$TMPD/$p.json" || fail "dram-trace $p.trace"
done
[ "$(sed -n 3p "$TMPD/gen/stream.trace" | cut -d' ' -f1)" = 0x80 ] || fail "stream: not 64 B apart"
python3 "$gen" -n 5000 -o "$TMPD/gen2" --write-frac 0.25 --patterns mix >/dev/null
cmp -s "$TMPD/gen/mix.trace" "$TMPD/gen2/mix.trace" || fail "the same seed gave another trace"
python3 - "$TMPD/stream.json" "$TMPD/random.json" <<'PY' || fail "stream vs random row hits"
import json, sys
s, r = (json.load(open(p)) for p in sys.argv[1:3])
assert 0.15 < s["writes"] / s["requests"] < 0.35, s
assert s["row_hits"] > 2 * r["row_hits"], (s, r)
PY
if python3 "$gen" --patterns nosuch -o "$TMPD/x" 2>"$TMPD/err"; then fail "unknown pattern accepted"; fi
grep -q "unknown pattern nosuch" "$TMPD/err" || fail "unknown pattern: $(cat "$TMPD/err")"
# Writes only: no read latency to give (it read 0.0 cycles), in the table and the JSON; and
# an address without 0x is hexadecimal, as Ramulator reads it.
printf '0x0 W\n1000 W\n' >"$TMPD/writes.trace"
"$CORUN" dram-trace "$TMPD/writes.trace" >"$TMPD/w.txt" &&
    grep -q '^read latency   - (no reads);' "$TMPD/w.txt" || fail "writes only: $(cat "$TMPD/w.txt")"
"$CORUN" dram-trace "$TMPD/writes.trace" --json |
    python3 -c 'import json, sys; r = json.load(sys.stdin); assert r["mean_read_latency_cycles"] is None and r["writes"] == 2, r' ||
    fail "writes only, --json"
echo "dram-trace: report, JSON, bad input and the trace tool ok"
