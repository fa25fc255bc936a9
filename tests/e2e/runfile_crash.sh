#!/usr/bin/env bash
# Run files survive SIGKILL: a recorder of synthetic epochs is killed at 20 random moments, in
# 20 separate runs; in half of them it adds a kernel to the mix at a random epoch (and later
# takes another out). After each kill the file must open with corun's reader and hold,
# unchanged, every epoch the recorder reported done (the one in flight may be missing), with
# the kernels it had by then (`runfile_writer check` knows which); and h5dump must read it
# after the documented `h5clear -s --increment=0` (docs/runfile.md).
# Before that, every file a kill could leave is built from the writes of one recording (after
# any of them, and cut inside one at a page boundary, where Linux can cut a write when the
# process is killed): each must hold every epoch committed before it. With its file space in
# pages, a run file has no block of metadata across a page boundary, so a kill cannot cut one;
# before that, about two in three writes cut there lost committed epochs ("incorrect metadata
# checksum"), and about one kill in a hundred on a loaded machine left such a file.
. "$(dirname "$0")/../lib.sh"
writer="$top_builddir/tests/runfile_writer"
[ -x "$writer" ] || fail "$writer is not built (make check builds it)"
dump=yes
command -v h5dump >/dev/null && command -v h5clear >/dev/null || dump=no

"$writer" crash-states "$TMPD/state.h5" 30 10 >"$TMPD/states" 2>&1 ||
    fail "a file a kill could leave lacks a committed epoch: $(tail -5 "$TMPD/states")"
grep -q "^crash states: [0-9]* writes for 30 epochs; [0-9]* files after a write, 0 cut inside one" \
    "$TMPD/states" || fail "crash states: $(cat "$TMPD/states")"

runs=20 early=0 lost_none=0 lost_one=0 grown=0
for run in $(seq 1 $runs); do
    f="$TMPD/run$run.h5"
    # Half the runs record flat out (the kill lands inside HDF5), half pause 1 ms per epoch.
    pause=$(((run % 2) * 1000))
    # Runs 2, 3, 6, 7, ... (both paces) add a fourth kernel before a random epoch, so that a kill
    # lands before, during or after the addition (0.6 s is roughly 100 to 200 epochs).
    add_at=0
    [ $((run % 4)) -ge 2 ] && add_at=$((1 + RANDOM % 100))
    : >"$TMPD/out" # emptied here: a kill before the child's redirection must not leave the
    : >"$TMPD/err" # last run's lines to be read as this one's
    "$writer" write "$f" 0 "$pause" "$add_at" >"$TMPD/out" 2>"$TMPD/err" &
    pid=$!
    delay=$(printf '0.%03d' $((RANDOM % 600)))
    sleep "$delay"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    done=$(grep -c '^epoch [0-9]* done$' "$TMPD/out" || true)
    what="run $run (killed after ${delay} s, $done epochs reported, kernel added at $add_at)"
    if [ ! -e "$f" ]; then
        # Killed while the file was being built: it never appeared under its name.
        ! grep -q '^created$' "$TMPD/out" || fail "$what: $f is missing after 'created'"
        early=$((early + 1))
        continue
    fi
    check=$("$writer" check "$f" "$add_at" 2>&1) || fail "$what: $check"
    got=$(printf '%s\n' "$check" | sed -n 's/^epochs \([0-9]*\) .*/\1/p')
    [ -n "$got" ] || fail "$what: unexpected check output: $check"
    # One more than reported: killed between the flush and the print.
    [ "$got" -ge "$done" ] && [ "$got" -le $((done + 1)) ] ||
        fail "$what: the file holds $got epochs"
    if [ "$got" -eq "$done" ]; then lost_one=$((lost_one + 1)); else lost_none=$((lost_none + 1)); fi
    case $check in *" kernels 4") grown=$((grown + 1)) ;; esac
    if [ $dump = yes ]; then
        cp "$f" "$TMPD/copy.h5"
        h5clear -s --increment=0 "$TMPD/copy.h5" || fail "$what: h5clear failed"
        h5dump -H "$TMPD/copy.h5" >/dev/null 2>"$TMPD/dump.err" ||
            fail "$what: h5dump -H: $(head -3 "$TMPD/dump.err")"
        h5dump -d /epoch_count "$TMPD/copy.h5" | grep -q "(0): $got\$" ||
            fail "$what: h5dump does not show epoch_count $got"
        # The complete rows only: the one in flight may be torn.
        nk=${check##* kernels }
        [ "$got" -eq 0 ] || h5dump -d /per_kernel/in_mix -c "$got,$nk" "$TMPD/copy.h5" >/dev/null \
            2>"$TMPD/dump.err" || fail "$what: h5dump -d /per_kernel/in_mix: $(head -3 "$TMPD/dump.err")"
    fi
done
cat "$TMPD/states"
echo "runfile crash: $runs kills; $((runs - early)) files opened with every reported epoch" \
    "($lost_one lost the epoch in flight, $lost_none lost nothing; $grown with an added kernel); $early" \
    "killed before the file appeared; h5dump check: $dump"
