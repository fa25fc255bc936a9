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

# For the tmux-driven workbench tests (tests/e2e/tui_*.sh). Each test drives one corun in a
# detached tmux pane on a private socket; deadlines are generous, never timing assertions.
#   tui_start W H ENV... -- ARGS...  run "env ENV... corun ARGS..." in a W x H pane; the pane
#                                    prints "exit=STATUS" when corun ends
#   tui_keys KEY...                  tmux send-keys to the pane
#   tui_screen [-e]                  print the pane (-e: with attributes and colours)
#   tui_wait TEXT [SECONDS]          wait until the pane shows TEXT (default 30 s), else fail
#   tui_gone TEXT [SECONDS]          wait until the pane no longer shows TEXT
#   tui_resize W H                   resize the pane's window
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
tui_wait() {
    local deadline=$((SECONDS + ${2:-30}))
    while [ $SECONDS -lt $deadline ]; do
        tui_screen >"$TMPD/screen" 2>/dev/null || true
        grep -qF -- "$1" "$TMPD/screen" && return 0
        sleep 0.1
    done
    fail "the screen never showed '$1':
$(cat "$TMPD/screen")"
}
tui_gone() {
    local deadline=$((SECONDS + ${2:-30}))
    while [ $SECONDS -lt $deadline ]; do
        tui_screen >"$TMPD/screen" 2>/dev/null || true
        grep -qF -- "$1" "$TMPD/screen" || return 0
        sleep 0.1
    done
    fail "the screen still shows '$1':
$(cat "$TMPD/screen")"
}
tui_resize() { tui_tmux resize-window -t tui -x "$1" -y "$2"; }

# Run CMD... expecting bad input: exit status 2 and a message on stderr matching PATTERN (a
# grep regex); WHAT names the case in failures. Scripts with other needs define their own.
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
