#!/usr/bin/env bash
# setup.sh waits for another apt's lock instead of failing with apt's raw error (issue 21,
# defect 14): a stand-in apt-get fails twice with the lock message, then succeeds.
. "$(dirname "$0")/../lib.sh"
mkdir "$TMPD/bin"
cat >"$TMPD/bin/apt-get" <<'STUB'
#!/usr/bin/env bash
n=$(cat "$STUB_COUNT" 2>/dev/null || echo 0)
echo $((n + 1)) >"$STUB_COUNT"
if [ "$n" -lt 2 ]; then
    echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
    exit 100
fi
echo "apt-get $*"
STUB
chmod +x "$TMPD/bin/apt-get"
export STUB_COUNT="$TMPD/count"
PATH="$TMPD/bin:$PATH" SETUP_APT_POLL=0.1 "$top_srcdir/setup.sh" apt-waiting install -y foo \
    >"$TMPD/out" 2>"$TMPD/err" || fail "setup.sh gave up on the lock: $(cat "$TMPD/err")"
[ "$(cat "$STUB_COUNT")" = 3 ] || fail "apt-get ran $(cat "$STUB_COUNT") times, expected 3"
grep -q "apt-get install -y foo" "$TMPD/out" || fail "the last try's output: $(cat "$TMPD/out")"
[ "$(grep -c 'holds the package lock; waiting for it' "$TMPD/err")" = 2 ] ||
    fail "no waiting message per retry: $(cat "$TMPD/err")"

# Another failure is not waited on; a lock held past SETUP_APT_WAIT gives up with a message.
echo 0 >"$STUB_COUNT"
sed -i 's/-lt 2/-lt 1000/' "$TMPD/bin/apt-get"
set +e
PATH="$TMPD/bin:$PATH" SETUP_APT_POLL=0.1 SETUP_APT_WAIT=0.3 "$top_srcdir/setup.sh" apt-waiting \
    update >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -ne 0 ] || fail "a lock never released still succeeded"
grep -q "lock is still held after 0.3 s" "$TMPD/err" || fail "give-up message: $(cat "$TMPD/err")"
printf '#!/bin/sh\necho "E: Unable to locate package foo" >&2\nexit 100\n' >"$TMPD/bin/apt-get"
set +e
PATH="$TMPD/bin:$PATH" SETUP_APT_POLL=0.1 "$top_srcdir/setup.sh" apt-waiting install foo \
    >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 100 ] || fail "apt-get's own failure: exit $rc, expected 100"
! grep -q waiting "$TMPD/err" || fail "waited on a failure that is not the lock"
echo "setup: waits for apt's lock, gives up with a message, passes other failures on"
