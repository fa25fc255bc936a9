#!/usr/bin/env bash
# hsm-figs.sh — HSM Figs. 2 and 3 re-measured on a preset with `corun solo --json`:
# Fig. 2, IPC on N SMs over IPC on all SMs for HSM's 15 applications (N in 8 steps);
# Fig. 3, bandwidth utilization against RBH of the 10 memory-bound ones on all SMs, with the
# least-squares line and R².
#
#   tools/hsm-figs.sh [-g PRESET] [-c CYCLES] [-j JOBS]
set -euo pipefail
gpu=hbm80 cycles=200000 jobs=2
while getopts g:c:j: o; do
    case $o in g) gpu=$OPTARG ;; c) cycles=$OPTARG ;; j) jobs=$OPTARG ;; *) exit 2 ;; esac
done
corun=${CORUN:-$(dirname "$0")/../build/corun}
compute="bino dxtc hotspot mri-q pf"
memory="2dconv bh convs dwt2d euler3d fwt lbm pvc sc srad"
sms=$("$corun" solo bino --gpu "$gpu" --cycles 1000 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sms"])')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export corun gpu cycles tmp
for k in $compute $memory; do
    for i in 1 2 3 4 5 6 7 8; do echo "$k $((sms * i / 8))"; done
done | xargs -P "$jobs" -n 2 sh -c '"$corun" solo "$0" --gpu "$gpu" --sms "$1" --cycles "$cycles" --json >"$tmp/$0.$1"'
python3 - "$tmp" "$sms" "$gpu" "$compute" "$memory" <<'PY'
import json, os, sys
tmp, sms, gpu = sys.argv[1], int(sys.argv[2]), sys.argv[3]
compute, memory = sys.argv[4].split(), sys.argv[5].split()
ns = [sms * i // 8 for i in range(1, 9)]
r = {k: {n: json.load(open(os.path.join(tmp, f"{k}.{n}"))) for n in ns} for k in compute + memory}
print(f"Fig. 2 on {gpu}: IPC on N SMs / IPC on {sms}")
print(f"{'kernel':9}" + "".join(f"{n:>7}" for n in ns) + "   90 % at")
for k in compute + memory:
    full = r[k][sms]["ipc"]
    s = [r[k][n]["ipc"] / full for n in ns]
    at = next((n for n, v in zip(ns, s) if v >= 0.9), sms)
    print(f"{k:9}" + "".join(f"{v:7.3f}" for v in s) + f"   {at:>4}")
print(f"\nFig. 3 on {gpu}, {sms} SMs: bandwidth utilization against RBH")
xs, ys = [], []
for k in memory:
    x, y = r[k][sms]["rbh"], r[k][sms]["bandwidth_pct"]
    xs.append(x); ys.append(y)
    print(f"  {k:9} RBH {x:.3f}  bandwidth {y:5.1f} % of peak")
n = len(xs); mx, my = sum(xs) / n, sum(ys) / n
sxx = sum((x - mx) ** 2 for x in xs); sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
syy = sum((y - my) ** 2 for y in ys)
b = sxy / sxx if sxx else 0; a = my - b * mx
r2 = sxy * sxy / (sxx * syy) if sxx and syy else 0
print(f"  least squares: utilization = {b:.1f} % x RBH + {a:.1f} %, R^2 = {r2:.3f}")
PY
