#!/usr/bin/env bash
# Layers only look down (docs/design.md §1). Usage: check_layering.sh [TREE]
#   util < sim < io, predict, accel < alloc < app < tui < cli
#   ncurses only under src/tui; HDF5, SQLite, libconfig and cairo only under src/io.
# A header include/corun/X.h belongs to the layer of the src/LAYER/X.c that implements it; a
# header-only module says its layer in a comment line "Layer: NAME".
. "$(dirname "$0")/lib.sh"
tree=${1:-$top_srcdir}
cd "$tree"

rank() {
    case $1 in
        util) echo 0 ;; sim) echo 1 ;; io | predict | accel) echo 2 ;; alloc) echo 3 ;;
        app) echo 4 ;; tui) echo 5 ;; cli) echo 6 ;; *) echo -1 ;;
    esac
}

errors=0
violation() { printf 'layering: %s\n' "$*" >&2; errors=$((errors + 1)); }

# Which layer implements each header.
declare -A layer_of
for h in include/corun/*.h; do
    name=$(basename "$h" .h)
    impl=$(find src -name "$name.c" | head -1)
    if [ -n "$impl" ]; then
        layer_of[$name]=$(basename "$(dirname "$impl")")
        continue
    fi
    declared=$(sed -n 's/.*Layer: *\([a-z]*\).*/\1/p' "$h" | head -1)
    if [ -z "$declared" ] || [ "$(rank "$declared")" -lt 0 ]; then
        violation "$h has no src/LAYER/$name.c and no 'Layer: NAME' comment"
        continue
    fi
    layer_of[$name]=$declared
done

for f in $(find src -name '*.[ch]' | sort); do
    layer=$(basename "$(dirname "$f")")
    r=$(rank "$layer")
    [ "$r" -ge 0 ] || { violation "$f: unknown layer '$layer'"; continue; }
    while IFS=: read -r line inc; do
        case $inc in
            *curses.h* | *ncurses*)
                [ "$layer" = tui ] || violation "$f:$line: ncurses outside src/tui" ;;
            *hdf5.h* | *H5*.h* | *sqlite3.h* | *libconfig.h* | *cairo*.h*)
                [ "$layer" = io ] || violation "$f:$line: $inc outside src/io" ;;
        esac
        dep=$(printf '%s' "$inc" | sed -n 's/.*"corun\/\([a-z0-9_]*\)\.h".*/\1/p')
        [ -n "$dep" ] || continue
        dl=${layer_of[$dep]:-}
        [ -n "$dl" ] || continue
        [ "$dl" = "$layer" ] && continue
        dr=$(rank "$dl")
        if [ "$dr" -ge "$r" ]; then
            violation "$f:$line: $layer includes corun/$dep.h of layer $dl (layers only look down)"
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | sed 's/^\([0-9]*\):[[:space:]]*#[[:space:]]*include[[:space:]]*/\1:/')
done

[ $errors -eq 0 ] || fail "$errors layering violation(s)"
echo "layering: ok"
