#!/usr/bin/env bash
# Layers only look down (docs/design.md §1). Usage: check_layering.sh [TREE]
#   util < sim < io, predict, alloc < app < tui < cli (tui and cli are one layer in the
#   design, tui/cli → app; cli starts the workbench, so the check ranks cli above tui)
#   ncurses only under src/tui; HDF5, SQLite, libconfig and cairo only under src/io.
# A header include/corun/X.h belongs to the layer of the src/LAYER/X.c that implements it; a
# header-only module says its layer in a comment line "Layer: NAME".
. "$(dirname "$0")/lib.sh"
tree=${1:-$top_srcdir}
cd "$tree"

# Sets R to the rank of layer $1 (-1: not a layer); no subshell, as it runs for every include.
rank() {
    case $1 in
        util) R=0 ;; sim) R=1 ;; io | predict | alloc) R=2 ;; app) R=3 ;;
        tui) R=4 ;; cli) R=5 ;; *) R=-1 ;;
    esac
}

errors=0
violation() { printf 'layering: %s\n' "$*" >&2; errors=$((errors + 1)); }

# Which layer implements each header.
declare -A layer_of impl_layer
while read -r c; do # src/LAYER/NAME.c, the first found of a name (as find | head -1 would)
    name=${c##*/}
    name=${name%.c}
    dir=${c%/*}
    [ -n "${impl_layer[$name]:-}" ] || impl_layer[$name]=${dir##*/}
done < <(find src -name '*.c')
for h in include/corun/*.h; do
    name=${h##*/}
    name=${name%.h}
    if [ -n "${impl_layer[$name]:-}" ]; then
        layer_of[$name]=${impl_layer[$name]}
        continue
    fi
    declared=$(sed -n 's/.*Layer: *\([a-z]*\).*/\1/p' "$h" | head -1)
    rank "$declared"
    if [ -z "$declared" ] || [ "$R" -lt 0 ]; then
        violation "$h has no src/LAYER/$name.c and no 'Layer: NAME' comment"
        continue
    fi
    layer_of[$name]=$declared
done

# Every include line of every source, in one grep (one pair of processes per file took 5 s of
# CPU time, and tests/check_checks.sh runs this five times): "FILE:LINE:#include ...".
mapfile -t sources < <(find src -name '*.[ch]' | sort)
for f in "${sources[@]}"; do
    layer=${f%/*}
    rank "${layer##*/}"
    [ "$R" -ge 0 ] || violation "$f: unknown layer '${layer##*/}'"
done
while IFS=: read -r f line inc; do
    layer=${f%/*}
    layer=${layer##*/}
    rank "$layer"
    r=$R
    [ "$r" -ge 0 ] || continue # said above
    case $inc in
        *curses.h* | *ncurses*)
            [ "$layer" = tui ] || violation "$f:$line: ncurses outside src/tui" ;;
        *hdf5.h* | *H5*.h* | *sqlite3.h* | *libconfig.h* | *cairo*.h*)
            [ "$layer" = io ] || violation "$f:$line: $inc outside src/io" ;;
    esac
    [[ $inc =~ \"corun/([a-z0-9_]*)\.h\" ]] || continue
    dep=${BASH_REMATCH[1]}
    dl=${layer_of[$dep]:-}
    [ -n "$dl" ] || continue
    [ "$dl" = "$layer" ] && continue
    rank "$dl"
    if [ "$R" -ge "$r" ]; then
        violation "$f:$line: $layer includes corun/$dep.h of layer $dl (layers only look down)"
    fi
done < <([ ${#sources[@]} -eq 0 ] || grep -Hn '^[[:space:]]*#[[:space:]]*include' "${sources[@]}" |
    sed 's/^\([^:]*:[0-9]*\):[[:space:]]*#[[:space:]]*include[[:space:]]*/\1:/')

[ $errors -eq 0 ] || fail "$errors layering violation(s)"
echo "layering: ok"
