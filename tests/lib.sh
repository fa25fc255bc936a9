# Shared helpers for the scripted tests. Source it; it sets -eu and defines:
#   fail MSG        print MSG and exit 1
#   skip MSG        print MSG and exit 77 (automake's "skipped")
#   tmpdir          a fresh directory removed on exit, in $TMPD
#   python3 ARGS... Debian's python3 (/usr/bin/python3) where it is, PATH's elsewhere
set -eu
: "${top_srcdir:?run through make check}"
: "${top_builddir:?run through make check}"
CORUN=${CORUN:-$top_builddir/corun}

# The tests' Python helpers run on Debian's python3, the one setup.sh installs, rather than on
# whatever python3 comes first in PATH: a version manager's shim there (pyenv's) starts a
# dozen processes before Python does, 0.33 s a call against 0.04 s, and the suite calls it
# some 170 times. Elsewhere, PATH's.
if [ -x /usr/bin/python3 ]; then
    python3() { /usr/bin/python3 "$@"; }
fi

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
skip() { printf 'SKIP: %s\n' "$*" >&2; exit 77; }
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

# For the tmux-driven workbench tests (tests/e2e/tui_*.sh). Each test drives one corun in a
# detached tmux pane on a private socket; deadlines are generous, never timing assertions.
#   tui_start W H ENV... -- ARGS...  run "env ENV... corun ARGS..." in a W x H pane; the pane
#                                    prints "exit=STATUS" when corun ends
#   tui_keys KEY...                  tmux send-keys to the pane
#   tui_screen [-e]                  print the pane (-e: with attributes and colours)
#   tui_wait TEXT [SECONDS]          wait until the pane shows TEXT (default 30 s), else fail
#   tui_gone TEXT [SECONDS]          wait until the pane no longer shows TEXT
#   tui_resize W H                   resize the pane's window
#   tui_corun_pid                    the pid of the pane's corun (nothing once it ended)
tui_tmux() { "$TUI_TMUX" -S "$TUI_SOCK" "$@"; }
tui_start() {
    TUI_TMUX=${TMUX_BIN:-$(command -v tmux || true)}
    # A fresh socket each time: a server just killed may still hold the old one for a moment.
    TUI_STARTS=$((${TUI_STARTS:-0} + 1))
    TUI_SOCK="$TMPD/tmux.$TUI_STARTS.sock"
    [ -n "$TUI_TMUX" ] || skip "tmux not found"
    trap 'tui_tmux kill-server 2>/dev/null || true; rm -rf "$TMPD"' EXIT
    local w=$1 h=$2 envs=() q
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        envs+=("$(printf '%q' "$1")")
        shift
    done
    shift
    q=$(printf '%q ' "$CORUN" "$@")
    tui_tmux new-session -d -x "$w" -y "$h" -s tui \
        "env CORUN_DATADIR=$(printf '%q' "$top_srcdir") ${envs[*]} $q; echo \"exit=\$?\"; sleep 60"
}
tui_keys() { tui_tmux send-keys -t tui "$@"; }
tui_screen() { tui_tmux capture-pane -p "$@" -t tui; }
# The polls below start one process each (tmux's client): the screen is matched by bash and
# the pause is a read that times out, not a grep and a sleep (some 3,000 of each a suite).
tui_poll() { # the screen into $TMPD/screen and $TUI_SCREEN
    tui_screen >"$TMPD/screen" 2>/dev/null || true
    TUI_SCREEN=
    IFS= read -r -d '' TUI_SCREEN <"$TMPD/screen" || true
}
tui_pause() { # 0.1 s: a read of a pipe nothing writes to, opened once
    [ -n "${TUI_PAUSE_FD:-}" ] || exec {TUI_PAUSE_FD}<> <(:)
    IFS= read -r -t 0.1 -u "$TUI_PAUSE_FD" _ || true
}
tui_wait() {
    local deadline=$((SECONDS + ${2:-30}))
    while [ $SECONDS -lt $deadline ]; do
        tui_poll
        [[ $TUI_SCREEN == *"$1"* ]] && return 0
        tui_pause
    done
    fail "the screen never showed '$1':
$(cat "$TMPD/screen")"
}
tui_gone() {
    local deadline=$((SECONDS + ${2:-30}))
    while [ $SECONDS -lt $deadline ]; do
        tui_poll
        [[ $TUI_SCREEN == *"$1"* ]] || return 0
        tui_pause
    done
    fail "the screen still shows '$1':
$(cat "$TMPD/screen")"
}
tui_resize() { tui_tmux resize-window -t tui -x "$1" -y "$2"; }
# The pid of the corun the pane runs (the pane's shell runs it as its child, then the echo
# and the sleep), or nothing once it has ended (from /proc: no procps needed).
tui_corun_pid() {
    local shell c
    shell=$(tui_tmux display-message -p -t tui '#{pane_pid}')
    for c in $(cat "/proc/$shell/task/$shell/children" 2>/dev/null); do
        [ "$(cat "/proc/$c/comm" 2>/dev/null)" = corun ] && echo "$c" && return 0
    done
    return 0
}
# Runs CMD... in the background (stdout to OUT, stderr to ERR), SIGKILLs its first child (a
# worker pool's first worker, which has the first task) as soon as that exists, and waits for
# it; its exit status goes to $killed_rc. From /proc: no procps needed.
run_killing_first_worker() { # OUT ERR CMD...
    local out=$1 err=$2 pid c
    shift 2
    "$@" >"$out" 2>"$err" &
    pid=$!
    for _ in $(seq 1 600); do
        c=$(cut -d' ' -f1 "/proc/$pid/task/$pid/children" 2>/dev/null)
        [ -n "$c" ] && break
        sleep 0.05
    done
    if [ -z "$c" ]; then
        kill -9 "$pid" 2>/dev/null || true
        fail "no worker process of '$*' seen in 30 s"
    fi
    kill -9 "$c"
    killed_rc=0
    wait "$pid" || killed_rc=$?
}
# The rows inside the frame of the panel whose title starts with NAME (focused or not), on the screen last
# captured in $TMPD/screen, written to OUT.
tui_panel() { # NAME OUT
    python3 - "$TMPD/screen" "$1" >"$2" <<'PY'
import sys
rows, name = open(sys.argv[1]).read().split("\n"), sys.argv[2]
# Its title: "┌─ NAME ...", or "┌─[ NAME ..." when the panel has the focus.
heads = ["┌─ " + name + " ", "┌─[ " + name + " "]
top = next(i for i, l in enumerate(rows) if any(h in l for h in heads))
left = min(rows[top].find(h) for h in heads if h in rows[top])
right = rows[top].index("┐", left)
for l in rows[top + 1:]:
    if l[left] == "└":
        break
    print(l[left + 1:right])
PY
}
# Opens the workbench's menu of key $1 (p, a) and chooses its row $2 by the row's digit.
tui_choose() {
    tui_keys "$1"
    tui_wait "Esc cancels"
    local n
    n=$(grep -Eo "[0-9] [ *] $2 " "$TMPD/screen" | head -1 | cut -c1)
    [ -n "$n" ] || fail "no $2 in the menu of $1:
$(cat "$TMPD/screen")"
    tui_keys "$n"
}
# The stream and compute rows of the third epoch of tests/data/good/tui_fast.cfg run headless
# (tui_headless_rows [ENV...]), and whether the workbench's kernel table shows them
# (tui_rows_match: fails with the screen otherwise).
tui_headless_rows() {
    env "$@" "$CORUN" run "$top_srcdir/tests/data/good/tui_fast.cfg" --epochs 3 >"$TMPD/headless"
    # "epoch kernel SMs IPC NP BW RBH" rows of the third epoch: SMs, IPC and NP.
    TUI_ROW_STREAM=$(awk '$1 == 3 && $2 == "stream" { print $3, $4, $5 }' "$TMPD/headless")
    TUI_ROW_COMPUTE=$(awk '$1 == 3 && $2 == "compute" { print $3, $4, $5 }' "$TMPD/headless")
    [ -n "$TUI_ROW_STREAM" ] && [ -n "$TUI_ROW_COMPUTE" ] || fail "no third epoch in the headless run"
}
# The kernel table's rows on the screen: its column titles and a row per kernel shown (the
# lines between its title and its frame's bottom edge).
tui_kernel_rows() {
    tui_screen | awk '/Kernels( [0-9]+-[0-9]+ of [0-9]+)?, /{on = 1; next} on && /^└/{exit} on'
}
tui_rows_match() {
    tui_screen >"$TMPD/s"
    local s c
    s=$(echo "$TUI_ROW_STREAM" | sed 's/ / +/g') c=$(echo "$TUI_ROW_COMPUTE" | sed 's/ / +/g')
    grep -Eq "A stream +$s " "$TMPD/s" || fail "stream row is not '$TUI_ROW_STREAM':
$(cat "$TMPD/s")"
    grep -Eq "B compute +$c " "$TMPD/s" || fail "compute row is not '$TUI_ROW_COMPUTE':
$(cat "$TMPD/s")"
}

# Run CMD... expecting bad input: exit status 2 and a message on stderr matching PATTERN (a
# grep regex); WHAT names the case in failures. Scripts with other needs define their own.
# Stops process PID with SIGTERM and waits for it: its exit status in rc (143 when it died of
# the signal).
term_and_wait() { # PID
    kill -TERM "$1"
    rc=0
    wait "$1" || rc=$?
}
expect_bad() { # WHAT PATTERN CMD...
    local what=$1 pattern=$2 rc
    shift 2
    set +e
    "$@" >/dev/null 2>"$TMPD/err"
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2: $(cat "$TMPD/err")"
    grep -q -- "$pattern" "$TMPD/err" || fail "$what: message: $(cat "$TMPD/err")"
}

# The workbench refuses, exit status 2 and MESSAGE (a fixed string) on stderr, when only one of
# its input and its output is a terminal: `corun ARGS...` runs under script (Debian's bsdutils)
# once with stdin from /dev/null and once with stdout to a file.
needs_both_terminals() { # MESSAGE ARGS...
    local want=$1 redir
    shift
    for redir in "</dev/null" ">'$TMPD/out'"; do
        timeout 60 script -qec "'$CORUN' $* $redir 2>'$TMPD/err'; echo rc=\$?" /dev/null \
            </dev/null | tr -d '\r' >"$TMPD/tty" || true
        grep -qx 'rc=2' "$TMPD/tty" && grep -qF -- "$want" "$TMPD/err" ||
            fail "corun $* $redir: $(cat "$TMPD/tty" "$TMPD/err")"
    done
}
