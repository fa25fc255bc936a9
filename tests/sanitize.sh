#!/usr/bin/env bash
# In CI (or with CORUN_SANITIZE=1): build the unit tests again with AddressSanitizer and
# UndefinedBehaviorSanitizer in a separate tree and run them.
. "$(dirname "$0")/lib.sh"
if [ -z "${CI:-}" ] && [ -z "${CORUN_SANITIZE:-}" ]; then
    skip "sanitizer build runs in CI or with CORUN_SANITIZE=1"
fi
[ ! -f "$top_srcdir/config.status" ] || skip "source tree is configured in place; sanitizer build needs a clean one"
san="$top_builddir/tests/san-build"
mkdir -p "$san"
cd "$san"
if [ ! -f Makefile ]; then
    "$top_srcdir/configure" --quiet --enable-sanitizers --enable-werror --enable-debug \
        --disable-dependency-tracking >configure.log 2>&1 || { cat configure.log; fail "configure"; }
fi
make -j"$(nproc)" >make.log 2>&1 || { tail -50 make.log; fail "sanitizer build"; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export CORUN_DATADIR="$top_srcdir"
make check-unit || fail "unit tests under ASan+UBSan"
echo "sanitizers: unit tests clean under ASan+UBSan"
