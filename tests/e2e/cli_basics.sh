#!/usr/bin/env bash
# The program's front door: --help, --version, help topics, unknown commands, check ok.
. "$(dirname "$0")/../lib.sh"

out=$("$CORUN" --help)
for c in tui check help; do
    grep -q "^  $c " <<<"$out" || fail "--help does not list '$c'"
done
# The simulator id is the checksum of the simulator's sources as they are now: a stale one would
# let the catalog hand out private-mode traces of another simulator.
: "${SIM_ID_INPUTS:?run this test through make check}"
sum=$(cd "$top_srcdir" && cat $SIM_ID_INPUTS | cksum | cut -d' ' -f1)
"$CORUN" --version | grep -qx "corun [0-9.]* (simulator $(printf %08x "$sum"))" \
    || fail "--version: $("$CORUN" --version), expected simulator $(printf %08x "$sum")"

"$CORUN" help scenario | grep -q 'epoch_cycles' || fail "help scenario lacks epoch_cycles"
"$CORUN" help scenario | grep -q 'an integer from 1000 to 100000000, in core cycles; default: 500000' \
    || fail "help scenario lacks range/unit/default"
"$CORUN" help gpu | grep -q 'dram.timing.faw' || fail "help gpu lacks dram.timing.faw"
"$CORUN" help kernel | grep -q 'footprint_bytes' || fail "help kernel lacks footprint_bytes"
"$CORUN" check --help | grep -q 'usage: corun check SCENARIO' || fail "check --help"

set +e
"$CORUN" chek x.cfg 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown command: exit $rc, expected 2"
grep -q "'chek' is not a command (did you mean 'check'?)" "$TMPD/err" || fail "no suggestion: $(cat "$TMPD/err")"

set +e
"$CORUN" --frobnicate 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown option: exit $rc"

[ "$("$CORUN" check "$top_srcdir/scenarios/default.cfg")" = ok ] || fail "default.cfg is not ok"

set +e
"$CORUN" tui "$top_srcdir/scenarios/default.cfg" </dev/null >/dev/null 2>"$TMPD/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'needs a terminal' "$TMPD/err" || fail "tui without a terminal: exit $rc"
echo "cli basics: ok"
