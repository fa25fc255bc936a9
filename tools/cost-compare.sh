#!/usr/bin/env bash
# cost-compare.sh — CPU seconds per simulated M cycle of two corun builds on the same
# scenarios, interleaved, median of N runs each; prints the new/old ratio per scenario.
#
#   tools/cost-compare.sh [-n RUNS] [-e EPOCHS] [-a "ARGS"] OLD_CORUN OLD_DATADIR NEW_CORUN NEW_DATADIR SCENARIO...
#
# -a gives the new binary's runs more arguments (split on blanks), e.g. -a "--threads 1": a
# build whose run keeps a second thread busy by default counts that thread's CPU time too.
#
# Each binary runs with its own data directory (profiles and presets of its own version), so
# a scenario that names a kernel runs each version's profile of it. One untimed run of each
# first fills the private-mode caches, as a second run of the same mix would find them.
set -euo pipefail
[ -x /usr/bin/time ] || { echo "$0: needs GNU time (Debian: apt-get install time)" >&2; exit 2; }
runs=5 epochs=4 new_args=
while getopts n:e:a: o; do
    case $o in n) runs=$OPTARG ;; e) epochs=$OPTARG ;; a) new_args=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -ge 5 ] || { echo "usage: $0 [-n RUNS] [-e EPOCHS] [-a ARGS] OLD OLD_DATADIR NEW NEW_DATADIR SCENARIO..." >&2; exit 2; }
old=$1 oldd=$2 new=$3 newd=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
printf '%-34s %10s %10s %7s\n' scenario "old s/Mcyc" "new s/Mcyc" ratio
for sc in "$@"; do
    cyc=$(sed -n 's/^epoch_cycles *= *\([0-9]*\);.*/\1/p' "$sc")
    mcyc=$(awk -v e="$epochs" -v c="$cyc" 'BEGIN {print e * c / 1e6}')
    for b in old new; do # warm the private-mode caches
        if [ $b = old ]; then CORUN_DATADIR=$oldd XDG_DATA_HOME=$tmp/o "$old" run "$sc" --epochs 1 >/dev/null
        else CORUN_DATADIR=$newd XDG_DATA_HOME=$tmp/n "$new" run "$sc" --epochs 1 $new_args >/dev/null; fi
    done
    : >"$tmp/old.t"; : >"$tmp/new.t"
    for _ in $(seq "$runs"); do
        for b in old new; do
            if [ $b = old ]; then bin=$old d=$oldd x=o extra=; else bin=$new d=$newd x=n extra=$new_args; fi
            s=$( { /usr/bin/time -f '%U %S' env CORUN_DATADIR="$d" XDG_DATA_HOME="$tmp/$x" \
                   "$bin" run "$sc" --epochs "$epochs" $extra >/dev/null; } 2>&1 | tail -1 | awk '{print $1 + $2}')
            echo "$s" >>"$tmp/$b.t"
        done
    done
    o=$(median <"$tmp/old.t") n=$(median <"$tmp/new.t")
    awk -v s="$(basename "$sc")" -v o="$o" -v n="$n" -v m="$mcyc" \
        'BEGIN {printf "%-34s %10.3f %10.3f %7.2f\n", s, o / m, n / m, n / o}'
done
