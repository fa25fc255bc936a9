#!/usr/bin/env bash
# corun.1 keeps up with the CLI (issue 21, defect 16): every option that a subcommand's help
# names appears in that subcommand's entry of the man page, and the default catalog path is
# given. Usage: check_manpage.sh (through make check).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
"$CORUN" help >"$TMPD/help" 2>&1 || fail "corun help"
python3 - "$CORUN" "$top_srcdir/corun.1" "$TMPD/help" <<'PY' || fail "corun.1 lags the CLI (above)"
import re, subprocess, sys
corun, man_path, help_path = sys.argv[1:4]
man = open(man_path, encoding="utf-8").read()
# The page as text: fonts dropped, "\-" as "-".
text = re.sub(r"\\f[BIRP]", "", man).replace("\\-", "-")
commands = re.findall(r"^  ([a-z][a-z-]*) ", open(help_path).read(), re.M)
assert len(commands) >= 15, commands
entries = {}  # command -> its entry: from its ".BI" line to the next command's
starts = [(m.start(), m.group(1)) for m in re.finditer(r'^\.BI "?([a-z][a-z-]*)[ "]', text, re.M)]
for (at, name), nxt in zip(starts, starts[1:] + [(len(text), None)]):
    end = text.find("\n.SH ", at)
    entries[name] = text[at:min(nxt[0], end if end >= 0 else len(text))]
missing = []
for cmd in commands:
    out = subprocess.run([corun, "help", cmd], capture_output=True, text=True).stdout
    if cmd not in entries:
        missing.append("%s: no entry in corun.1" % cmd)
        continue
    for opt in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-j)\b", out))):
        if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), entries[cmd]):
            missing.append("%s %s: in `corun help %s`, not in its corun.1 entry" % (cmd, opt, cmd))
if "catalog.db" not in text:
    missing.append("the default catalog path is not in corun.1")
for m in missing:
    print(m)
sys.exit(1 if missing else 0)
PY
echo "manpage: every option of every command's help is in corun.1"
