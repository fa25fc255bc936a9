#!/usr/bin/env bash
# sanitize-e2e.sh — the end-to-end scripts run against a corun built with AddressSanitizer and
# UndefinedBehaviorSanitizer (leaks included), two at a time. The suite's tests/sanitize.sh
# covers the unit tests only: the scripts under ASan cost about 8 minutes of two cores, more
# than the suite's budget leaves, so this is run by hand after a change to the commands.
#
#   tools/sanitize-e2e.sh [-b BUILD] [-o SANDIR] [TEST...]
#
# BUILD is the configured build tree whose test helpers (catalog_locker, runfile_writer) the
# scripts use (default: build beside this script's tree); SANDIR is where the sanitized corun
# is configured and built (default: /tmp/corun-san-e2e). TEST... are scripts under
# tests/e2e/ (default: all of them but the long studies, Slurm and the apt lock test). Each
# script's output goes to SANDIR/logs/NAME.log; the exit status is 1 when any failed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build san=/tmp/corun-san-e2e
while getopts b:o: opt; do
    case $opt in
    b) build=$(cd "$OPTARG" && pwd) ;;
    o) san=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD] [-o SANDIR] [TEST...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ -f "$build/Makefile" ] || { echo "$0: $build is not a configured build tree" >&2; exit 2; }
# A tree configured without dependency tracking (as this script once did) keeps objects
# built against an older header: a struct grown since reads past its end under ASan. Made
# again from scratch.
if [ -f "$san/config.status" ] && grep -q "^ac_cs_config=.*disable-dependency-tracking" "$san/config.status"; then
    echo "$san was configured without dependency tracking: configuring it again" >&2
    rm -rf "$san"
fi
mkdir -p "$san/logs" "$san/xdg"
if [ ! -f "$san/Makefile" ]; then
    (cd "$san" && "$top/configure" --quiet --enable-sanitizers CFLAGS="-O1 -g1" \
        >configure.log 2>&1) ||
        { cat "$san/configure.log" >&2; exit 1; }
fi
echo "building the sanitized corun in $san" >&2
(cd "$san" && make corun_sim_id.h >/dev/null && make -j"$(nproc)" corun >make.log 2>&1) ||
    { tail -30 "$san/make.log" >&2; exit 1; }
make -C "$build" -s tests/catalog_locker tests/runfile_writer >/dev/null

if [ $# -eq 0 ]; then
    set -- $(cd "$top/tests/e2e" && ls *.sh |
        grep -vE '^(reproduce_|slurm|scaleout_kept|tui_lessons_all|setup_apt_lock|train_themis|rbh_shift|calibrate_quick|bench)')
fi
# What `make check` exports (Makefile.am's AM_TESTS_ENVIRONMENT), with this corun.
export top_srcdir=$top top_builddir=$build CORUN=$san/corun CORUN_DATADIR=$top
export CLANG_FORMAT=${CLANG_FORMAT:-clang-format} TMUX_BIN=${TMUX_BIN:-tmux}
export XDG_DATA_HOME=$san/xdg
SIM_ID_INPUTS=$(make -s -C "$build" -f Makefile -f - print-sim-id-inputs <<'EOF'
print-sim-id-inputs:
	@echo '$(sim_id_inputs)'
EOF
)
export SIM_ID_INPUTS
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_one() { # NAME
    local name=${1##*/} rc=0
    bash "$top/tests/e2e/$name" >"$san/logs/$name.log" 2>&1 || rc=$?
    case $rc in
    0) echo "PASS $name" ;;
    77) echo "SKIP $name" ;;
    *) echo "FAIL $name (exit $rc; $san/logs/$name.log)" ;;
    esac
}
export -f run_one
export san top
printf '%s\n' "$@" | xargs -P2 -I{} bash -c 'run_one "$1"' _ {} | tee "$san/summary"
! grep -q '^FAIL' "$san/summary"
