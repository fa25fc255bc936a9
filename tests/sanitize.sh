#!/usr/bin/env bash
# In CI (or with CORUN_SANITIZE=1): build the unit tests again with AddressSanitizer and
# UndefinedBehaviorSanitizer in a separate tree and run them.
. "$(dirname "$0")/lib.sh"
if [ -z "${CI:-}" ] && [ -z "${CORUN_SANITIZE:-}" ]; then
    skip "sanitizer build runs in CI or with CORUN_SANITIZE=1"
fi
[ ! -f "$top_srcdir/config.status" ] || skip "source tree is configured in place; sanitizer build needs a clean one"
san="$top_builddir/tests/san-build"
# A tree kept from a run without dependency tracking holds objects built against older headers
# (a grown struct then reads past its end): made again.
if grep -qs "^ac_cs_config=.*disable-dependency-tracking" "$san/config.status"; then rm -rf "$san"; fi
mkdir -p "$san"
cd "$san"
if [ ! -f Makefile ]; then
    # -O1, as the sanitizers' own documentation advises: the same checks (assertions stay on in
    # every build), with the unit tests four times faster than at -O0 (about 220 s against 900 s
    # of the suite's 15 minutes on two cores). -g1: line tables only, all a report's stack needs
    # (file and line of every frame); it compiles in a fifth less time than -g.
    "$top_srcdir/configure" --quiet --enable-sanitizers --enable-werror CFLAGS="-O1 -g1" \
        >configure.log 2>&1 || { cat configure.log; fail "configure"; }
fi
# Only what the unit tests need (the generated header first: the objects include it).
{ make corun_sim_id.h && make -j"$(nproc)" unit-programs; } >make.log 2>&1 ||
    { tail -50 make.log; fail "sanitizer build"; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The tree's flags must catch what they are for: a heap overflow, a leak and a signed overflow,
# each in a small program built as the unit tests are, must stop it with the sanitizer's report.
cc=$(sed -n 's/^CC = //p' Makefile) cflags=$(sed -n 's/^CFLAGS = //p' Makefile)
for bug in overflow leak signed; do
    cat >"$TMPD/$bug.c" <<EOF
#include <limits.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    (void)argv;
    char *volatile p = malloc(8); /* volatile: -O1 keeps the allocation */
    int i = INT_MAX - 1 + argc; /* argc is 1: INT_MAX, and one more overflows */
    if (!strcmp("$bug", "overflow"))
        p[7 + argc] = 1;
    if (!strcmp("$bug", "signed"))
        i++;
    if (strcmp("$bug", "leak"))
        free(p);
    p = NULL;
    return i == 0;
}
EOF
    # shellcheck disable=SC2086 # the tree's flags, split into words on purpose
    $cc $cflags -o "$TMPD/$bug" "$TMPD/$bug.c" || fail "building the $bug check"
    if "$TMPD/$bug" >"$TMPD/$bug.out" 2>&1; then fail "the sanitizer build missed a $bug"; fi
    grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error' "$TMPD/$bug.out" ||
        fail "the $bug check failed without a sanitizer report: $(cat "$TMPD/$bug.out")"
done
export CORUN_DATADIR="$top_srcdir"
make check-unit || fail "unit tests under ASan+UBSan"

# The commands' own paths the unit tests cannot reach: the corun binary of this tree on
# refusals that come late in a command (tools/sanitize-e2e.sh runs every end-to-end script
# this way, by hand: too long for the suite). An allocation experiment refusing its --resume
# journal after listing its mixes leaked the list until 2026-12-06.
make -j"$(nproc)" corun >>make.log 2>&1 || { tail -50 make.log; fail "sanitizer build of corun"; }
echo "not a journal" >"$TMPD/text"
set +e
XDG_DATA_HOME="$TMPD/xdg" ./corun reproduce smqos --threshold --mixes 4 --resume "$TMPD/text" \
    >/dev/null 2>"$TMPD/resume.err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'not a corun reproduce journal' "$TMPD/resume.err" ||
    fail "reproduce with a refused journal under ASan+UBSan: exit $rc: $(cat "$TMPD/resume.err")"
echo "sanitizers: unit tests and a late refusal of corun clean under ASan+UBSan"
