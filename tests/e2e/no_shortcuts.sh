#!/usr/bin/env bash
# `corun run --no-shortcuts`: every GPU stepped cycle by cycle, without the compute rotation's
# fast-forward and the jumps over idle stretches, gives the output the shortcuts give, byte for
# byte: a spatial pair, a four-kernel mix with an application of three kernels, a mix whose
# allocator gates SMs and moves them, and an accelerator scenario (a GPU idle between copies
# and queries). Its private-mode references are cached apart from the shortcuts' (the catalog
# holds both sets afterwards), and `bench --compare` of a binary against itself with
# --other-args --no-shortcuts says "identical".
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"
traces() { "$CORUN" runs query "SELECT COUNT(*) FROM solo_traces" | tail -1; }

n=0
for spec in "default --epochs 2 --set epoch_cycles=40000" \
    "studies/quad-mixed --epochs 1 --set epoch_cycles=30000" \
    "demo-smqos --epochs 3 --set epoch_cycles=10000" \
    "$top_srcdir/tests/data/good/accel-quick.cfg"; do
    n=$((n + 1))
    read -r -a args <<<"$spec"
    "$CORUN" run "${args[@]}" --json --threads 1 >"$TMPD/with.$n" 2>"$TMPD/err" ||
        fail "run $spec: $(cat "$TMPD/err")"
    before=$(traces)
    "$CORUN" run "${args[@]}" --json --threads 1 --no-shortcuts >"$TMPD/without.$n" 2>"$TMPD/err" ||
        fail "run $spec --no-shortcuts: $(cat "$TMPD/err")"
    cmp -s "$TMPD/with.$n" "$TMPD/without.$n" ||
        fail "run $spec: the shortcuts change the output: $(diff "$TMPD/with.$n" "$TMPD/without.$n" | head -5)"
    if [ $n -eq 1 ]; then # the pair's two references, once more for the per-cycle path
        [ "$before" -ge 2 ] && [ "$(traces)" -eq $((before + 2)) ] ||
            fail "traces: $before before --no-shortcuts, $(traces) after (expected 2 more)"
    fi
done
grep -q '"kernels"' "$TMPD/with.2" && grep -q '"applications"\|"ls"' "$TMPD/with.4" ||
    fail "not the outputs expected: $(head -c 300 "$TMPD/with.4")"

# As the help and corun.1 write it, `--compare corun`: OTHER found on PATH as a shell finds a
# command (it was taken for a file in the working directory only, and refused elsewhere).
bindir=$(cd "$(dirname "$CORUN")" && pwd)
(cd "$TMPD" && PATH="$bindir:$PATH" "$CORUN" bench --compare corun --other-args --no-shortcuts \
    --runs 1 --epochs 1 "$top_srcdir/tests/data/good/small.cfg") >"$TMPD/bench" 2>&1 ||
    fail "bench: $(cat "$TMPD/bench")"
grep -Eq '^small\.cfg .* identical$' "$TMPD/bench" || fail "bench: $(cat "$TMPD/bench")"
echo "no-shortcuts: $n scenarios byte-identical with and without the shortcuts"
