#!/usr/bin/env bash
# Tables line up a name of wide glyphs: `corun run` and `show` (a kernel of the user's own data
# named 日本語), `runs list` (its mix), `kernels list`, and an accelerator run's table and its
# `runs show` (an application named 日本語), and `suite list` (a mix tagged 日本語, a suite so
# named). They padded by bytes: 日本語 is nine bytes and six columns, so each row holding it
# ran three columns short of the header.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
locale -a 2>/dev/null | grep -qix 'C.utf-\?8' || skip "no C.UTF-8 locale"
export LC_ALL=C.UTF-8
dd="$TMPD/dd"
mkdir -p "$dd/data/kernels"
for d in "$top_srcdir"/data/*; do
    [ "${d##*/}" = kernels ] || ln -s "$d" "$dd/data/"
done
cp "$top_srcdir"/data/kernels/*.cfg "$dd/data/kernels/"
cp "$top_srcdir/data/kernels/atax.cfg" "$dd/data/kernels/日本語.cfg"
export CORUN_DATADIR="$dd"
sed 's/name = "stream";/name = "日本語";/' "$top_srcdir/tests/data/good/small.cfg" >"$TMPD/wide.cfg"
grep -q '"日本語"' "$TMPD/wide.cfg" || fail "small.cfg has no stream to rename"

# The rows of FILE matching ROW_REGEX (at least two, one of them wide) put their Nth field
# (from 0, split at blanks) at the same columns, a wide glyph taking two: where it ends (a
# right-aligned column) or, with --start, where it starts.
aligned() { # WHAT FILE N ROW_REGEX [--start]
    python3 - "$@" <<'PY' || fail "$1: not aligned: $(cat "$2")"
import re, sys, unicodedata
what, path, n, row = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
start = len(sys.argv) > 5
wide = lambda s: "".join(".." if unicodedata.east_asian_width(c) in "WF" else c for c in s)
rows = [l.rstrip("\n") for l in open(path, encoding="utf-8") if re.search(row, l)]
assert len(rows) >= 2 and any("日本語" in l for l in rows), (what, rows)
at = {[m.start() if start else m.end() for m in re.finditer(r"\S+", wide(l))][n] for l in rows}
assert len(at) == 1, (what, rows)
PY
}

"$CORUN" run "$TMPD/wide.cfg" --epochs 1 --out "$TMPD/wide.h5" --catalog "$TMPD/c.db" \
    >"$TMPD/run" 2>/dev/null || fail "run: $(cat "$TMPD/run")"
grep -q '日本語' "$TMPD/run" || fail "run: no 日本語 row: $(cat "$TMPD/run")"
aligned "run" "$TMPD/run" 2 '^ +1  '
aligned "run, RBH" "$TMPD/run" 6 '^ +1  '
"$CORUN" show "$TMPD/wide.h5" >"$TMPD/show" || fail "show: $(cat "$TMPD/show")"
aligned "show" "$TMPD/show" 2 '^ +1  '
# Two runs, so that a row of another mix lies beside the wide one.
"$CORUN" run "$top_srcdir/tests/data/good/small.cfg" --epochs 1 --out "$TMPD/plain.h5" \
    --catalog "$TMPD/c.db" >/dev/null 2>&1 || fail "run small.cfg"
"$CORUN" runs list --catalog "$TMPD/c.db" >"$TMPD/list" || fail "runs list: $(cat "$TMPD/list")"
grep -q '日本語+compute' "$TMPD/list" || fail "runs list: $(cat "$TMPD/list")"
aligned "runs list" "$TMPD/list" 4 '^ +[12]  '
# Its headers end where their right-aligned numbers do ("epochs" and "mean fair" ended one and
# two columns right of them).
python3 - "$TMPD/list" <<'PY' || fail "runs list: headers not over their numbers: $(cat "$TMPD/list")"
import re, sys, unicodedata
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
wide = lambda s: "".join(".." if unicodedata.east_asian_width(c) in "WF" else c for c in s)
head = lines[0]
rows = [wide(l) for l in lines[1:] if re.match(r"^ +[12]  ", l)]
assert len(rows) == 2, rows
for word, field in (("epochs", 4), ("STP", 5), ("fair", 6)):
    end = head.index(word) + len(word)
    for r in rows:
        got = [m.end() for m in re.finditer(r"\S+", r)][field]
        assert got == end, (word, end, got, r)
PY
"$CORUN" kernels list >"$TMPD/kernels" || fail "kernels list"
aligned "kernels list" "$TMPD/kernels" 1 '^(atax|日本語) ' --start
# An accelerator run's table.
cat >"$TMPD/accel.cfg" <<'CFG'
mode = "accelerator"; name = "tiny"; gpu = "k40"; seed = 3;
applications = (
  { name = "日本語"; role = "ls"; qos_target = 2.0; queries = 3; tasks = ( { type = "kernel";
    kernel = { tbs = 1; warps_per_tb = 1; insts_per_warp = 1; mem_fraction = 0.0; footprint_bytes = 128; }; } ); },
  { name = "plain"; role = "ls"; qos_target = 2.0; queries = 3; tasks = ( { type = "kernel";
    kernel = { tbs = 1; warps_per_tb = 1; insts_per_warp = 1; mem_fraction = 0.0; footprint_bytes = 128; }; } ); } );
CFG
"$CORUN" run "$TMPD/accel.cfg" --out "$TMPD/accel.h5" --catalog "$TMPD/c.db" >"$TMPD/accel" \
    2>/dev/null || fail "accelerator run: $(cat "$TMPD/accel")"
aligned "accelerator run" "$TMPD/accel" 1 '^(日本語|plain) ' --start
aligned "accelerator run, procs" "$TMPD/accel" 2 '^(日本語|plain) '
"$CORUN" runs show a1 --catalog "$TMPD/c.db" >"$TMPD/accel.show" ||
    fail "runs show a1: $(cat "$TMPD/accel.show")"
aligned "runs show a1" "$TMPD/accel.show" 1 '^  (日本語|plain) ' --start
# A suite's mixes, one tagged 日本語 (`suite list` padded tags by bytes too), and the data
# directory's suites, one named 日本語.
mkdir -p "$dd/scenarios/suites"
sed 's/tag = "b";/tag = "日本語";/; s/tags = \["a", "b"\]/tags = ["a", "日本語"]/' \
    "$top_srcdir/tests/data/good/tiny-suite.cfg" >"$dd/scenarios/suites/日本語.cfg"
cp "$top_srcdir/tests/data/good/tiny-suite.cfg" "$dd/scenarios/suites/tiny.cfg"
"$CORUN" suite list "$dd/scenarios/suites/日本語.cfg" >"$TMPD/suite" || fail "suite list: $(cat "$TMPD/suite")"
aligned "suite list" "$TMPD/suite" 2 '^ +[1-4]  ' --start
"$CORUN" suite list >"$TMPD/suites" || fail "suite list of the suites: $(cat "$TMPD/suites")"
aligned "suite list, the suites" "$TMPD/suites" 1 '^  (tiny|日本語) ' --start
echo "wide names: run, show, runs list, kernels list, suite list and accelerator tables line up"
