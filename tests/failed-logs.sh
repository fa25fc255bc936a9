#!/usr/bin/env bash
# failed-logs.sh BUILD_DIR — print the log of every test script that failed in BUILD_DIR's last
# `make check`, each under a "---- NAME" line, so CI's output says why a test failed. automake
# records each result in NAME.trs as ":test-result: PASS" (FAIL, ERROR, XPASS, SKIP, XFAIL).
set -euo pipefail
cd "${1:?usage: failed-logs.sh BUILD_DIR}"
for trs in tests/*.trs tests/e2e/*.trs; do
    [ -f "$trs" ] || continue
    if grep -Eq '^:test-result: (FAIL|ERROR|XPASS)' "$trs"; then
        log="${trs%.trs}.log"
        printf 'setup: ---- %s\n' "$log" >&2
        if [ -f "$log" ]; then cat "$log"; else echo "(no log)"; fi
    fi
done
