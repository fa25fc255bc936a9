#!/usr/bin/env bash
# `corun bench` without --compare: on GPUs of 3 SMs and of 1 (a data directory of their own),
# its every figure follows from the ones it prints (speed and slowdown from the median epoch,
# the per-10-SM cost from each line's, the epochs' ratios from their totals); its SM-scaling
# lines are half, three quarters and all of the SMs, each once (a 3-SM preset once looped
# forever on a step of 3/4 = 0 SMs); the four DRAM streams each get a line, their row-buffer
# hit rates in the order of their locality; and --traces reads trace files.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 not found"

dd="$TMPD/datadir"
mkdir -p "$dd/data/gpus"
ln -s "$top_srcdir/data/kernels" "$dd/data/kernels"
for n in 3 1; do
    sed "s/^sms = 15;/sms = $n;/" "$top_srcdir/data/gpus/k40.cfg" >"$dd/data/gpus/k40-$n.cfg"
    grep -q "^sms = $n;" "$dd/data/gpus/k40-$n.cfg" || fail "k40.cfg has no 'sms = 15;' line to change"
done
mhz=$(sed -n 's/^core_clock_mhz = \([0-9.]*\);.*/\1/p' "$dd/data/gpus/k40-3.cfg")
[ -n "$mhz" ] || fail "no core_clock_mhz in k40.cfg"

bench() { # OUT ARGS...: corun bench ARGS in the data directory above; 5 minutes at most
    local out=$1
    shift
    set +e
    CORUN_DATADIR="$dd" timeout 300 "$CORUN" bench "$@" >"$out" 2>"$TMPD/err"
    local rc=$?
    set -e
    [ $rc -ne 124 ] || fail "bench $* did not finish in 5 minutes"
    [ $rc -eq 0 ] || fail "bench $*: exit $rc: $(cat "$TMPD/err")"
}

# OUT SMS...: the printed figures agree with each other; the scaling lines are SMS.
check_figures() {
    python3 - "$mhz" "$@" <<'PY'
import itertools, re, sys
mhz, path, want_sms = float(sys.argv[1]), sys.argv[2], [int(s) for s in sys.argv[3:]]
text = open(path).read()
def near(f, args, b, digits):
    """b, printed with `digits` decimals, is f(*args) where each arg is (value, its printed
    decimals): f is monotonic in each argument, so its range over the args' rounding is
    spanned by the corners."""
    corners = [[v - 0.5 * 10 ** -d, v + 0.5 * 10 ** -d] for v, d in args]
    vals = [f(*c) for c in itertools.product(*corners)]
    h = 0.5 * 10 ** -digits + 1e-9
    assert min(vals) - h <= b <= max(vals) + h, (args, b, min(vals), max(vals))
EXACT = 12  # decimals of a figure that was not rounded
m = re.search(r"^GPU core: k40-\d, stream \+ compute on an even split, epochs of 100000 core "
              r"cycles \((\d+) us of GPU time\)$", text, re.M)
assert m, text
near(lambda f: 100000 / f, [(mhz, EXACT)], float(m.group(1)), 0)
med = float(re.search(r"^  median epoch +([\d.]+) ms CPU \(3 epochs\)$", text, re.M).group(1))
speed = float(re.search(r"^  speed +([\d.]+) M core cycles per CPU second$", text, re.M).group(1))
near(lambda m: 100000 / m / 1e3, [(med, 1)], speed, 2)
slow = float(re.search(r"^  slowdown +(\d+)x the simulated GPU's real time$", text, re.M).group(1))
near(lambda m: m * 1e3 / (100000 / mhz), [(med, 1)], slow, 0)
rows = re.findall(r"^ +(\d+) SMs? +([\d.]+) ms  \(([\d.]+) ms per 10 SMs\)$", text, re.M)
assert [int(r[0]) for r in rows] == want_sms, rows
for sms, ms, per10 in rows:
    near(lambda t: t * 10 / int(sms), [(float(ms), 1)], float(per10), 2)
assert (" 1 SM " in text) == (1 in want_sms), text  # one SM, singular
eps = re.findall(r"^ +(\d) epochs? +([\d.]+) ms  \(([\d.]+) x one epoch\)$", text, re.M)
assert [int(e[0]) for e in eps] == [1, 2, 3, 4], eps
for n, total, ratio in eps:
    near(lambda t, one: t / one, [(float(total), 1), (float(eps[0][1]), 1)], float(ratio), 2)
dram = re.findall(r"^  (\w+) +(\d+) requests +([\d.]+) M requests per CPU s  \(([\d.]+) % of peak, "
                  r"RBH ([\d.]+)\)$", text, re.M)
assert [d[0] for d in dram] == ["stream", "random", "mix", "mix2k"], dram
assert all(int(d[1]) > 0 and float(d[2]) > 0 and 0 < float(d[3]) <= 100 for d in dram), dram
rbh = {d[0]: float(d[4]) for d in dram}
assert rbh["stream"] > rbh["mix"] > rbh["random"], rbh
PY
}

bench "$TMPD/three" --quick --gpu k40-3
check_figures "$TMPD/three" 1 2 3 || fail "bench on 3 SMs: $(cat "$TMPD/three")"
grep -q "^DRAM alone: k40-3's memory system, generated streams (simulate only)$" "$TMPD/three" ||
    fail "DRAM heading: $(cat "$TMPD/three")"
grep -Eq '^  stream +200000 requests ' "$TMPD/three" || fail "--quick streams: $(cat "$TMPD/three")"
bench "$TMPD/one" --quick --gpu k40-1
check_figures "$TMPD/one" 1 || fail "bench on 1 SM: $(cat "$TMPD/one")"

# --traces: the files are read (their request counts, not --quick's), parsing included.
python3 "$top_srcdir/tools/gen_dram_traces.py" -n 3000 -o "$TMPD/traces" >/dev/null ||
    fail "gen_dram_traces.py"
bench "$TMPD/traced" --quick --gpu k40-3 --traces "$TMPD/traces"
grep -q "^DRAM alone: k40-3's memory system, trace files (parse + simulate)$" "$TMPD/traced" ||
    fail "--traces heading: $(cat "$TMPD/traced")"
[ "$(grep -Ec '^  (stream|random|mix|mix2k) +3000 requests ' "$TMPD/traced")" -eq 4 ] ||
    fail "--traces rows: $(cat "$TMPD/traced")"
echo ok
