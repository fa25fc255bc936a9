#!/usr/bin/env bash
# Every C file must match .clang-format exactly. Usage: check_format.sh [TREE]
. "$(dirname "$0")/lib.sh"
tree=${1:-$top_srcdir}
cf=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
[ -n "$cf" ] || skip "clang-format not found"
cd "$tree"
files=$(find src include tests -name '*.[ch]' | sort)
[ -n "$files" ] || fail "no C files found under $tree"
# shellcheck disable=SC2086
if ! "$cf" --style=file --dry-run --Werror $files 2>"$TMPD/out"; then
    head -40 "$TMPD/out" >&2
    fail "files differ from .clang-format (fix with: $cf -i FILE)"
fi
echo "format: $(echo "$files" | wc -l) files match .clang-format"
