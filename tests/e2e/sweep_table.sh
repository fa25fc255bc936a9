#!/usr/bin/env bash
# corun sweep's table covers the sweep it was asked for: the suite file's mixes and the
# combinations of --combos, not every result of a suite of that name in the catalog (another
# file named "tiny" with a mix of its own added it to the count, and a combination not asked
# for got a row).
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"
cd "$TMPD"
cp "$top_srcdir/tests/data/good/tiny-suite.cfg" tiny.cfg
"$CORUN" sweep tiny.cfg --combos none:static,hsm:fair --catalog t.db >out 2>&1 ||
    fail "first sweep: exit $? $(cat out)"
# The same suite name, one mix dropped and one new.
sed '/"random", "compute"/d; s/kernels = \["cachefit", "compute"\];/kernels = ["stream", "cachefit"];/' \
    tiny.cfg >b.cfg
grep -q '"stream", "cachefit"' b.cfg || fail "b.cfg: $(cat b.cfg)"
"$CORUN" sweep b.cfg --combos none:static --catalog t.db >out 2>&1 || fail "b.cfg: exit $? $(cat out)"
grep -q '^b.cfg, shard 1/1: 3 items, 2 already in the catalog, 1 run now, 0 failed$' out ||
    fail "b.cfg: $(cat out)"
grep -Eq '^  none:static +3 ' out || fail "b.cfg: the mixes of another suite file counted: $(cat out)"
grep -q 'hsm:fair' out && fail "b.cfg: a combination not asked for: $(cat out)"
[ "$(grep -c '^  ' out)" = 2 ] || fail "b.cfg: expected a header and one row: $(cat out)"
exit 0
