#!/usr/bin/env bash
# The kept scale-out journal (docs/journals/) carried to this build as docs/journals/README.md
# tells: one cell simulated into a journal of this build's, `reproduce merge --adopt` takes the
# other 384 once that cell is byte-identical in both, and `corun reproduce prophet --scaleout
# --resume` then prints, simulating nothing, every cell as its row in docs/accelerator.md and
# the cluster's day as tools/scaleout-rows.py sums it (the table on that page, which
# check_scaleout_rows.sh compares). Skipped, saying why, when this build's simulator or data are
# not the journal's nor of a simulator the README lists as having adopted it since: its results
# would be other ones, and the study would start again.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
kept=$top_srcdir/docs/journals/prophet-scaleout.journal
sim=$(tr -s ' \n' ' ' <"$top_srcdir/docs/journals/README.md" |
    sed -n 's/.*prophet-scaleout.journal`.* (its simulator: \([0-9a-f]\{8\}\),.*/\1/p')
[ -n "$sim" ] || fail "docs/journals/README.md does not say which simulator made the journal"
# The simulators that adopted it since (their results the same): on them a refusal is a
# failure of the build, not a new simulator's other results.
since=$(tr -s ' \n' ' ' <"$top_srcdir/docs/journals/README.md" |
    sed -n 's/.*Simulators that have adopted it since, that test passing on each: \([^.]*\)\..*/\1/p' |
    grep -oE '\b[0-9a-f]{8}\b' | tr '\n' ' ')
[ -n "$since" ] || fail "docs/journals/README.md does not list the simulators that adopted the journal"
cp "$kept" "$TMPD/kept.journal"
cp "$kept.curves" "$TMPD/kept.journal.curves"

# Cell 172 (pos beside pf at 10 %): one of the cheapest, its LS curve measured with it.
"$CORUN" reproduce prophet --scaleout --shard 172/385 --resume "$TMPD/new.journal" \
    >"$TMPD/cell" 2>"$TMPD/err" || fail "one cell: exit $? $(cat "$TMPD/err")"
grep -q '^shard 172/385: 1 of the 385 cells simulated into ' "$TMPD/cell" ||
    fail "one cell: $(tail -3 "$TMPD/cell")"
if ! "$CORUN" reproduce merge --adopt "$TMPD/new.journal" "$TMPD/kept.journal" >"$TMPD/merge" \
    2>"$TMPD/err"; then
    mine=$("$CORUN" --version | sed -n 's/.*(simulator \([0-9a-f]*\)).*/\1/p')
    case " $sim $since" in
    *" $mine "*) ;;
    *) skip "this build's simulator ($mine) is not the one that made the kept journal ($sim)" \
        "nor one that adopted it since ($since): $(cat "$TMPD/err")" ;;
    esac
    ! grep -q "made with other data" "$TMPD/err" || skip "$(cat "$TMPD/err")"
    fail "the kept journal not adopted by a build of its simulator or of one that adopted it: $(cat "$TMPD/err")"
fi
grep -q '384 records added, 1 already in .*(1 of them simulated by both builds, byte-identical)' \
    "$TMPD/merge" || fail "adopt: $(cat "$TMPD/merge")"

"$CORUN" reproduce prophet --scaleout --resume "$TMPD/new.journal" >"$TMPD/out" 2>"$TMPD/err" ||
    fail "the table from the whole journal: exit $? $(cat "$TMPD/err")"
grep -q '^(385 of the 385 cells read from .*new.journal' "$TMPD/out" ||
    fail "not every cell read: $(tail -3 "$TMPD/out")"
python3 - "$top_srcdir" "$TMPD/out" "$TMPD/new.journal" <<'PY' || fail "corun's tables and the page's differ (above)"
import importlib.util, re, sys
top, out, journal = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("rows", f"{top}/tools/scaleout-rows.py")
rows = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rows)
doc = rows.doc_cells(f"{top}/docs/accelerator.md")
text = open(out, encoding="utf-8").read()
bad = 0
# Every cell: corun's line and the page's row, instances, ratio and star.
cells = re.findall(r"^(\w[\w-]*) +(\w[\w-]*) +(\d+)%((?: +\d+ +(?:inf|\d+\.\d+)x\*?){4}) *$",
                   text, re.M)
if len(cells) != 385:
    sys.exit(f"expected 385 cell lines, found {len(cells)}")
for ls, batch, load, deciders in cells:
    mine = [(int(k), "∞" if x == "inf" else x, star == "*")
            for k, x, star in re.findall(r"(\d+) +(inf|\d+\.\d+)x(\*?)", deciders)]
    if mine != rows.shown(doc[(ls, batch, int(load))]):
        print(f"{ls} beside {batch} at {load} %: corun {mine}, "
              f"page {rows.shown(doc[(ls, batch, int(load))])}", file=sys.stderr)
        bad += 1
# The day: corun's summary and the tool's sums of the same records, to corun's decimals.
cells, busy = rows.journal_cells(journal)
rest = rows.GPUS + (rows.POOL + rows.PROCS - 1) // rows.PROCS  # the pool on GPUs of its own
want = {"none": (rest, rest, 0.0, 0.0, rows.none_busy(busy), 0, 0.0, 0.0)}
for name, (mean, peak, placed, share, b, co, over, over10) in rows.summarize(cells, busy).items():
    want[name] = (mean, peak, placed, share, b, co, over / co, over10 / co)
for name, w in want.items():
    m = re.search(rf"^{name} +([\d.]+) +(\d+) +([\d.]+) +([\d.]+)% +([\d.]+)% +(\d+) +([\d.]+)% "
                  rf"+([\d.]+)%$", text, re.M)
    shown = (f"{w[0]:.1f}", str(w[1]), f"{w[2]:.1f}", f"{100 * w[3]:.1f}", f"{100 * w[4]:.1f}",
             str(w[5]), f"{100 * w[6]:.1f}", f"{100 * w[7]:.1f}")
    if not m or m.groups() != shown:
        print(f"{name}: corun {m.groups() if m else 'no line'}, the tool {shown}", file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
PY
