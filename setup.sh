#!/usr/bin/env bash
# setup.sh — install what corun needs on Debian, build it, and run it or its tests.
#
#   ./setup.sh run [ARGS...]   set up, then start corun (the workbench on the default scenario)
#   ./setup.sh test            set up, then run the whole test suite (what CI runs)
#   ./setup.sh build           set up only
#
# Missing Debian packages are installed with apt-get (as root, or through sudo); when neither
# is possible the script names the packages to install and stops. The build lives in ./build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build="$here/build"
mode=${1:-run}
[ $# -gt 0 ] && shift

PACKAGES=(gcc make autoconf automake pkg-config
          libncurses-dev libconfig-dev libsqlite3-dev libhdf5-dev libcmocka-dev libcairo2-dev
          tmux clang-format clang python3 valgrind hdf5-tools)
# Only the test suite needs these: a single-node Slurm that tests/e2e/slurm.sh starts itself.
TEST_PACKAGES=(slurm-wlm munge)

say() { printf 'setup: %s\n' "$*" >&2; }

missing_packages() {
    local p
    for p in "${PACKAGES[@]}"; do
        if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
            printf '%s\n' "$p"
        fi
    done
}

install_packages() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        say "not a Debian system: make sure these (or your system's equivalents) are installed:"
        say "  ${PACKAGES[*]}"
        return 0
    fi
    local missing
    missing=$(missing_packages | tr '\n' ' ')
    [ -z "$missing" ] && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo=(sudo)
        elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
            sudo=(sudo)
        else
            say "these Debian packages are missing and I cannot install them (not root, no sudo):"
            say "  $missing"
            say "install them as root with:  apt-get install $missing"
            exit 1
        fi
    fi
    say "installing: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt_waiting "${sudo[@]}" apt-get update -q
    # shellcheck disable=SC2086
    apt_waiting "${sudo[@]}" apt-get install -y -q --no-install-recommends $missing
}

# Run an apt-get command; while another apt or dpkg holds its lock (an unattended upgrade, a
# second terminal), say so and wait for it rather than fail with apt's raw lock error.
# SETUP_APT_POLL (seconds between tries, default 5) and SETUP_APT_WAIT (seconds in all,
# default 1800) bound the wait.
apt_waiting() {
    local poll=${SETUP_APT_POLL:-5} limit=${SETUP_APT_WAIT:-1800} waited=0 rc err
    err=$(mktemp)
    while :; do
        rc=0
        "$@" 2>"$err" || rc=$?
        cat "$err" >&2
        if [ $rc -eq 0 ] || ! grep -Eq 'Could not get lock|Unable to acquire|Unable to lock' "$err"; then
            rm -f "$err"
            return $rc
        fi
        if awk -v w="$waited" -v l="$limit" 'BEGIN { exit !(w >= l) }'; then
            say "apt's lock is still held after ${limit} s; stop the other apt or dpkg and run me again"
            rm -f "$err"
            return $rc
        fi
        say "another apt or dpkg holds the package lock; waiting for it (${waited} s so far)"
        sleep "$poll"
        waited=$(awk -v w="$waited" -v p="$poll" 'BEGIN { print w + p }')
    done
}

build_corun() {
    cd "$here"
    if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
        say "autoreconf"
        autoreconf -fi >/dev/null
    fi
    mkdir -p "$build"
    cd "$build"
    if [ ! -f Makefile ]; then
        say "configure"
        "$here/configure" --enable-werror --quiet
    fi
    say "make"
    make -j"$(nproc)" >/dev/null
}

# Counts from automake's test-suite.log, as one closing line.
summarize_tests() {
    local log="$build/test-suite.log" pass fail skip xfail error
    pass=$(sed -n 's/^# PASS: *//p' "$log")
    fail=$(sed -n 's/^# FAIL: *//p' "$log")
    skip=$(sed -n 's/^# SKIP: *//p' "$log")
    xfail=$(sed -n 's/^# XPASS: *//p' "$log")
    error=$(sed -n 's/^# ERROR: *//p' "$log")
    echo "tests: $pass passed, $((fail + xfail + error)) failed, $skip skipped"
}

run_tests() {
    cd "$build"
    local rc=0
    # One job per core. The workbench and Slurm tests spend part of their time waiting (on
    # tmux's screen, on slurmctld), and on 2 cores an extra job once filled it (160 s against
    # 181 s, 2026-11-29); on the 2-core virtual machines since, a third job slows the other two
    # about as much as it gains (.ci/run from a fresh clone: 885 s at -j2 against 914 s at -j3;
    # the tests alone 806 s at -j2, about 850 at -j3, 841 at -j4; 2026-12-06, docs/results.md).
    make -j"$(nproc)" check || rc=$?
    # The CMocka programs' own reports, so their summary lines are in the output.
    for log in tests/unit/*.log; do
        [ -f "$log" ] && cat "$log"
    done
    # A failing script's own log, so CI's output says why.
    "$here/tests/failed-logs.sh" "$build" || true
    summarize_tests
    return $rc
}

case "$mode" in
    run) install_packages; build_corun; exec "$build/corun" "$@" ;;
    test) PACKAGES+=("${TEST_PACKAGES[@]}"); install_packages; build_corun; run_tests ;;
    build) install_packages; build_corun ;;
    # Internal: apt-get ARGS... with apt_waiting (tests/e2e/setup_apt_lock.sh drives it).
    apt-waiting) apt_waiting apt-get "$@" ;;
    -h|--help|help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) say "unknown mode '$mode' (expected run, test or build; see ./setup.sh --help)"; exit 2 ;;
esac
