#!/usr/bin/env bash
# Accelerator scenarios at the command line: `check` validates one with library profiles and
# one with its own traces; `run` validates the same way and then refuses (exit 1) because the
# task engine is not built; a spatial command (tui) names the mode line; `help accelerator`
# lists the scenario, application and task settings.
. "$(dirname "$0")/../lib.sh"

cat >"$TMPD/pair.cfg" <<'CFG'
mode = "accelerator";
name = "gmm beside lavaMD";
gpu = "k40";
applications = (
  { name = "gmm"; role = "ls"; qos_target = 1.5; arrival = "poisson"; rate_qps = 500; },
  { name = "md"; role = "batch"; instances = 2; }
);
CFG
out=$("$CORUN" check "$TMPD/pair.cfg") || fail "check pair.cfg"
[ "$out" = ok ] || fail "check printed '$out'"

set +e
"$CORUN" run "$TMPD/pair.cfg" >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "run: exit status $rc, expected 1"
[ ! -s "$TMPD/out" ] || fail "run printed on stdout"
grep -qF "a valid accelerator scenario, but corun cannot run one yet" "$TMPD/err" \
    || fail "run: $(cat "$TMPD/err")"

set +e
"$CORUN" run "$top_srcdir/tests/data/bad/accel_no_qos.cfg" >"$TMPD/out" 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "run of a bad one: exit status $rc, expected 2"
grep -qF "applications[0].qos_target: required for an LS application" "$TMPD/err" \
    || fail "run of a bad one: $(cat "$TMPD/err")"

set +e
"$CORUN" tui "$TMPD/pair.cfg" >"$TMPD/out" 2>"$TMPD/err" </dev/null
rc=$?
set -e
[ $rc -eq 2 ] || fail "tui: exit status $rc, expected 2"
grep -qF "pair.cfg:1: mode: an accelerator scenario (\`corun check\` validates it)" "$TMPD/err" \
    || fail "tui: $(cat "$TMPD/err")"

"$CORUN" help accelerator >"$TMPD/help" || fail "help accelerator"
for word in applications qos_target rate_qps instances bytes exclusive kernel; do
    grep -q "$word" "$TMPD/help" || fail "help accelerator does not mention $word"
done
echo "accelerator scenarios: check ok, run refuses with exit 1, tui names the mode, help lists the settings"
