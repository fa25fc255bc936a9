#!/usr/bin/env bash
# docs/settings.md is what tools/settings-doc.sh prints from this binary: every setting's
# range, unit and default in the reference are the ones the program checks.
. "$(dirname "$0")/../lib.sh"

"$top_srcdir/tools/settings-doc.sh" "$CORUN" >"$TMPD/settings.md" || fail "tools/settings-doc.sh failed"
if ! diff -u "$top_srcdir/docs/settings.md" "$TMPD/settings.md" >"$TMPD/diff"; then
    head -40 "$TMPD/diff" >&2
    fail "docs/settings.md differs from the program's help topics (above, first 40 lines):" \
        "run tools/settings-doc.sh build/corun > docs/settings.md and commit it"
fi
# Every topic the reference has is one `corun help` answers, and each is a section.
for t in scenario accelerator gpu kernel lesson suite; do
    grep -q "^\`corun help $t\`:" "$top_srcdir/docs/settings.md" || fail "docs/settings.md lacks corun help $t"
done
