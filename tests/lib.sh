# Shared helpers for the scripted tests. Source it; it sets -eu and defines:
#   fail MSG        print MSG and exit 1
#   skip MSG        print MSG and exit 77 (automake's "skipped")
#   tmpdir          a fresh directory removed on exit, in $TMPD
set -eu
: "${top_srcdir:?run through make check}"
: "${top_builddir:?run through make check}"
CORUN=${CORUN:-$top_builddir/corun}

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
skip() { printf 'SKIP: %s\n' "$*" >&2; exit 77; }
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
