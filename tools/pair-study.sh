#!/usr/bin/env bash
# pair-study.sh — each kernel of set A beside each kernel of set B on an even split of a
# preset's SMs, with `corun run --json`; prints per pair each kernel's NP, NP / (S_k / sigma),
# IPC per SM and LLC hit rate, averaged over the epochs after the first (warm-up).
#
#   tools/pair-study.sh [-g PRESET] [-e EPOCHS] [-c CYCLES] [-j JOBS] "A1 A2 ..." "B1 B2 ..."
#
# Needs python3 for the JSON. CORUN (default build/corun) names the binary.
set -euo pipefail
gpu=hbm80 epochs=4 cycles=200000 jobs=2
while getopts g:e:c:j: o; do
    case $o in
    g) gpu=$OPTARG ;; e) epochs=$OPTARG ;; c) cycles=$OPTARG ;; j) jobs=$OPTARG ;;
    *) echo "usage: $0 [-g PRESET] [-e EPOCHS] [-c CYCLES] [-j JOBS] \"A...\" \"B...\"" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: $0 [-g PRESET] [-e EPOCHS] [-c CYCLES] [-j JOBS] \"A...\" \"B...\"" >&2; exit 2; }
corun=${CORUN:-$(dirname "$0")/../build/corun}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_pair() {
    local a=$1 b=$2 f="$tmp/$1+$2"
    cat >"$f.cfg" <<CFG
name = "$a + $b";
gpu = "$gpu";
seed = 1;
epochs = $epochs;
epoch_cycles = $cycles;
kernels = ( { name = "$a"; }, { name = "$b"; } );
CFG
    "$corun" run "$f.cfg" --json >"$f.json" 2>"$f.err" || { echo "$a + $b: $(cat "$f.err")" >&2; return 1; }
}
export -f run_pair
export gpu epochs cycles corun tmp
for a in $1; do for b in $2; do echo "$a $b"; done; done |
    xargs -P "$jobs" -n 2 bash -c 'run_pair "$0" "$1"'
python3 - "$tmp" $1 -- $2 <<'PY'
import json, os, sys
tmp = sys.argv[1]; args = sys.argv[2:]; cut = args.index('--')
A, B = args[:cut], args[cut + 1:]
print(f"{'kernel':10} {'beside':10} {'SMs':>5} {'NP':>7} {'NP/(S/s)':>9} {'IPC/SM':>7} {'LLC hit':>7}   {'co NP':>7} {'co LLC hit':>10}")
for a in A:
    for b in B:
        d = json.load(open(os.path.join(tmp, f"{a}+{b}.json")))
        sigma = d['gpu']['sms'] if isinstance(d['gpu'], dict) else None
        eps = d['epochs'][1:] or d['epochs']
        def avg(k, f):
            return sum(f(e['kernels'][k]) for e in eps) / len(eps)
        hit = lambda k: (lambda c: 1 - c['l2_misses'] / c['l2_accesses'] if c['l2_accesses'] else 0)
        sms = avg(0, lambda c: c['sms']); np_ = avg(0, lambda c: c['np'])
        tot = sum(c['sms'] for c in eps[0]['kernels'])
        print(f"{a:10} {b:10} {sms:5.1f} {np_:7.4f} {np_ / (sms / tot):9.4f} {avg(0, lambda c: c['ipc']) / sms:7.3f} {avg(0, hit(0)):7.3f}   {avg(1, lambda c: c['np']):7.4f} {avg(1, hit(1)):10.3f}")
PY
