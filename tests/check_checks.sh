#!/usr/bin/env bash
# The format and layering checks must fail on a violation: break a copy of the tree on purpose
# and expect each check to catch it.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
copy="$TMPD/tree"
mkdir -p "$copy"
cp -r "$top_srcdir/src" "$top_srcdir/include" "$top_srcdir/tests" "$top_srcdir/.clang-format" \
    "$copy/"

"$here/check_layering.sh" "$copy" >/dev/null || fail "layering check fails on the clean tree"

# ncurses in the simulator.
sed -i '1a #include <curses.h>' "$copy/src/sim/kernel.c"
if "$here/check_layering.sh" "$copy" 2>"$TMPD/err"; then fail "ncurses in src/sim not caught"; fi
grep -q 'src/sim/kernel.c:2: ncurses outside src/tui' "$TMPD/err" || fail "wrong message: $(cat "$TMPD/err")"
cp "$top_srcdir/src/sim/kernel.c" "$copy/src/sim/kernel.c"

# The simulator looking up at the loader.
sed -i '1a #include "corun/scenario.h"' "$copy/src/sim/gpu.c"
if "$here/check_layering.sh" "$copy" 2>"$TMPD/err"; then fail "sim -> io include not caught"; fi
grep -q 'layers only look down' "$TMPD/err" || fail "wrong message: $(cat "$TMPD/err")"
cp "$top_srcdir/src/sim/gpu.c" "$copy/src/sim/gpu.c"

# An allocator reaching sideways into a predictor: alloc, predict and io are one layer, each
# given what it needs from above (the check ranked alloc above predict and io until 2026-12-07).
sed -i '1a #include "corun/hsm.h"' "$copy/src/alloc/alloc.c"
if "$here/check_layering.sh" "$copy" 2>"$TMPD/err"; then fail "alloc -> predict include not caught"; fi
grep -q 'alloc includes corun/hsm.h of layer predict' "$TMPD/err" || fail "wrong message: $(cat "$TMPD/err")"
cp "$top_srcdir/src/alloc/alloc.c" "$copy/src/alloc/alloc.c"

# SQLite outside src/io.
sed -i '1a #include <sqlite3.h>' "$copy/src/cli/main.c"
if "$here/check_layering.sh" "$copy" 2>/dev/null; then fail "sqlite3 in src/cli not caught"; fi
cp "$top_srcdir/src/cli/main.c" "$copy/src/cli/main.c"

# A header no layer owns (no src/LAYER/NAME.c, no "Layer:" comment).
echo 'int orphan;' >"$copy/include/corun/zz_orphan.h"
if "$here/check_layering.sh" "$copy" 2>"$TMPD/err"; then fail "a header without a layer not caught"; fi
grep -q 'zz_orphan.h has no src/LAYER/zz_orphan.c' "$TMPD/err" || fail "wrong message: $(cat "$TMPD/err")"
rm "$copy/include/corun/zz_orphan.h"

# A formatting slip.
cf=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [ -n "$cf" ]; then
    # On a tree of one file: check_format.sh itself reads the whole tree (two more passes over
    # it here took 20 s of CPU time).
    small="$TMPD/small"
    mkdir -p "$small/src/util" "$small/include" "$small/tests"
    cp "$top_srcdir/.clang-format" "$small/"
    cp "$top_srcdir/src/util/util.c" "$small/src/util/"
    "$here/check_format.sh" "$small" >/dev/null || fail "format check fails on the clean tree"
    sed -i 's/^    return p;$/  return   p ;/' "$small/src/util/util.c"
    cmp -s "$top_srcdir/src/util/util.c" "$small/src/util/util.c" && fail "the format slip was not made"
    if "$here/check_format.sh" "$small" 2>/dev/null; then fail "format slip not caught"; fi
fi
# setup.sh prints a failed script's log (tests/failed-logs.sh), from automake's .trs records.
b="$TMPD/build"
mkdir -p "$b/tests/e2e"
for r in PASS FAIL SKIP ERROR; do
    printf ':test-result: %s\n:global-test-result: %s\n' "$r" "$r" >"$b/tests/e2e/t_$r.sh.trs"
    echo "the log of a $r" >"$b/tests/e2e/t_$r.sh.log"
done
"$here/failed-logs.sh" "$b" >"$TMPD/out" 2>&1 || fail "failed-logs.sh exits non-zero"
for r in FAIL ERROR; do
    grep -q "the log of a $r" "$TMPD/out" || fail "a $r log not printed: $(cat "$TMPD/out")"
done
if grep -q 'the log of a PASS\|the log of a SKIP' "$TMPD/out"; then
    fail "a passing log printed: $(cat "$TMPD/out")"
fi
echo "checks: each deliberate violation was caught"
