#!/usr/bin/env bash
# Two processes writing one catalog: while one holds a write transaction for 2 s, a writer with
# a 0.5 s busy timeout gives up with the "locked" message and a non-zero exit, and a writer with
# a 5 s timeout waits for the commit and succeeds after it.
. "$(dirname "$0")/../lib.sh"
locker=$top_builddir/tests/catalog_locker
[ -x "$locker" ] || fail "$locker not built (make check builds it)"
mkdir "$TMPD/shard"
cat=$TMPD/shard/catalog.db

"$locker" hold "$cat" 2 "$TMPD/ready" &
holder=$!
for _ in $(seq 200); do
    [ -e "$TMPD/ready" ] && break
    kill -0 "$holder" 2>/dev/null || fail "the holder exited before taking the lock"
    sleep 0.05
done
[ -e "$TMPD/ready" ] || fail "the holder never took the lock"

set +e
"$locker" write "$cat" 500 >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -ne 0 ] || fail "a 0.5 s writer succeeded while the catalog was locked"
grep -qF "catalog $cat is locked by another process (waited 0.5 s) while adding a run; try again or use --catalog" \
    "$TMPD/err" || fail "locked message: $(cat "$TMPD/err")"
[ ! -s "$TMPD/out" ] || fail "the refused writer printed a run id: $(cat "$TMPD/out")"

"$locker" write "$cat" 5000 >"$TMPD/out" 2>"$TMPD/err" || fail "the 5 s writer failed: $(cat "$TMPD/err")"
wait "$holder" || fail "the holder failed to commit"
# The holder's run (1) committed first; the waiting writer's came after it.
[ "$(cat "$TMPD/out")" = 2 ] || fail "the waiting writer's run id is '$(cat "$TMPD/out")', expected 2"
echo "catalog lock: the short writer was refused, the patient one waited and succeeded"
