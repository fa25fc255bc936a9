#!/usr/bin/env bash
# `corun dram-trace`: a generated trace gives a sane report (text and JSON) and, on a terminal, a
# progress bar; every bad input (unknown preset, bad option values, an unparsable line, an empty
# or missing trace) gets its message and exit status 2.
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

json=$("$CORUN" dram-trace "$TMPD/random.trace" --gpu hbm80 --json --mapping linear)
python3 - "$json" <<'PY' || fail "JSON: $json"
import json, sys
r = json.loads(sys.argv[1])
assert r["requests"] == 20000, r
assert 0 < r["utilization_pct"] < 100, r
assert r["row_hits"] + r["row_misses"] + r["row_conflicts"] == r["requests"], r
assert r["activates"] >= r["row_misses"] + r["row_conflicts"], r
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
echo "dram-trace: report, JSON, bad input and the trace tool ok"
