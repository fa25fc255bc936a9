#!/usr/bin/env bash
# corun plot: a recorded run (a predictor, the fair allocator moving SMs) drawn as SVG and as
# PNG; the PNG has the PNG signature and the size asked for, the SVG parses as XML with an
# <svg> root of that size and has drawing in it; a bad extension, size or run file is refused
# with status 2 and a message. An accelerator run file draws as its task timeline and query
# latencies.
. "$(dirname "$0")/../lib.sh"
export CORUN_DATADIR="$top_srcdir" XDG_DATA_HOME="$TMPD/xdg"
"$CORUN" run "$top_srcdir/tests/data/good/tui_fast.cfg" --epochs 4 --predictor hsm \
    --allocator fair --out "$TMPD/r.h5" --catalog "$TMPD/c.db" >/dev/null ||
    fail "the run could not be recorded"

"$CORUN" plot "$TMPD/r.h5" --out "$TMPD/p.png" --width 800 --height 600 >"$TMPD/out" ||
    fail "plot to PNG failed"
grep -q "drew 4 epochs" "$TMPD/out" || fail "no summary: $(cat "$TMPD/out")"
"$CORUN" run "$top_srcdir/tests/data/good/tui_fast.cfg" --epochs 1 --out "$TMPD/one.h5" \
    --catalog "$TMPD/c.db" >/dev/null 2>&1 || fail "a run of one epoch could not be recorded"
"$CORUN" plot "$TMPD/one.h5" --out "$TMPD/one.svg" | grep -q "drew 1 epoch of" ||
    fail "one epoch: $("$CORUN" plot "$TMPD/one.h5" --out "$TMPD/one2.svg")"
[ "$(od -An -tx1 -N8 "$TMPD/p.png" | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "p.png has no PNG signature"
# IHDR: width and height, big-endian, at bytes 16-23.
[ "$(od -An -tu1 -j16 -N8 "$TMPD/p.png" | tr -s ' ' | sed 's/^ //')" = "0 0 3 32 0 0 2 88" ] ||
    fail "p.png is not 800x600: $(od -An -tu1 -j16 -N8 "$TMPD/p.png")"
[ "$(stat -c %s "$TMPD/p.png")" -gt 5000 ] || fail "p.png is nearly empty"

"$CORUN" plot "$TMPD/r.h5" --out "$TMPD/p.svg" >/dev/null || fail "plot to SVG failed"
if command -v python3 >/dev/null; then
    python3 - "$TMPD/p.svg" <<'PY' || fail "p.svg is not a well-formed SVG of 1200x900"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
assert root.get("viewBox") == "0 0 1200 900", root.get("viewBox")
# pixels, as the help says (cairo wrote points: 1200pt, 1600 px at 96 dpi)
assert (root.get("width"), root.get("height")) == ("1200px", "900px"), root.attrib
paths = root.iter("{http://www.w3.org/2000/svg}path")
assert sum(1 for _ in paths) > 50
PY
else
    head -c 200 "$TMPD/p.svg" | grep -q "<svg" || fail "p.svg has no <svg> element"
fi

expect_bad "a JPEG" "p.jpg: expected a file name ending in .svg or .png" \
    "$CORUN" plot "$TMPD/r.h5" --out "$TMPD/p.jpg"
# ".svg" alone has no name (it was told to end in .svg); A.SVG is an SVG (it was refused).
expect_bad "no name" "$TMPD/.svg: no name before its .svg; expected NAME.svg or NAME.png" \
    "$CORUN" plot "$TMPD/r.h5" --out "$TMPD/.svg"
"$CORUN" plot "$TMPD/r.h5" --out "$TMPD/P.SVG" >/dev/null && head -c 200 "$TMPD/P.SVG" | grep -q "<svg" ||
    fail "an upper-case .SVG"
expect_bad "a tiny picture" "corun: --width: expected a whole number from 200 to 10000, got '10'" \
    "$CORUN" plot "$TMPD/r.h5" --out "$TMPD/q.png" --width 10
expect_bad "a tall picture" "corun: --height: expected a whole number from 200 to 10000, got '1e4'" \
    "$CORUN" plot "$TMPD/r.h5" --out "$TMPD/q.png" --height 1e4
expect_bad "a missing run" "nothere.h5" "$CORUN" plot "$TMPD/nothere.h5" --out "$TMPD/q.png"
expect_bad "no --out" "usage: corun plot" "$CORUN" plot "$TMPD/r.h5"
# A picture never replaces the run file it draws, by its name or through a link (it did, exit 0).
cp "$TMPD/r.h5" "$TMPD/own.svg"
ln -s "$TMPD/own.svg" "$TMPD/link.png"
expect_bad "--out the run file" "plot: --out $TMPD/own.svg is the run file it would draw" \
    "$CORUN" plot "$TMPD/own.svg" --out "$TMPD/own.svg"
expect_bad "--out a link to the run file" "plot: --out $TMPD/link.png is the run file" \
    "$CORUN" plot "$TMPD/own.svg" --out "$TMPD/link.png"
"$CORUN" show "$TMPD/own.svg" >/dev/null || fail "the run file drawn was damaged"
expect_bad "an unwritable path" "p.png: cannot write the picture: No such file or directory" \
    "$CORUN" plot "$TMPD/r.h5" --out "$TMPD/no/such/dir/p.png"
[ ! -e "$TMPD/q.png" ] || fail "a refused plot left a file"
mkdir "$TMPD/d.svg"
expect_bad "a directory" "d.svg: a directory; expected the picture's file name" \
    "$CORUN" plot "$TMPD/r.h5" --out "$TMPD/d.svg"
# A picture corun cannot write is named so, and left as it was (a failed picture's file is
# removed only when corun could write it: it is then cut short).
if [ "$(id -u)" -ne 0 ]; then
    echo keep >"$TMPD/ro.svg"
    chmod 444 "$TMPD/ro.svg"
    expect_bad "a read-only picture" "ro.svg: cannot write the picture: Permission denied" \
        "$CORUN" plot "$TMPD/r.h5" --out "$TMPD/ro.svg"
    [ "$(cat "$TMPD/ro.svg")" = keep ] || fail "a read-only picture was removed or changed"
fi

# A legal name of 252 bytes is drawn (the name drawn into beside it passed 255: refused).
long=$(printf 'a%.0s' $(seq 248)).svg
"$CORUN" plot "$TMPD/r.h5" --out "$TMPD/$long" >/dev/null 2>"$TMPD/err" &&
    head -c 200 "$TMPD/$long" | grep -q "<svg" || fail "a 252-byte picture name: $(cat "$TMPD/err")"
[ "$(find "$TMPD" -name '*part*' | wc -l)" = 0 ] || fail "a picture's part left: $(find "$TMPD" -name '*part*')"
# A symbolic link at --out is refused and left as it is, as run --out and export refuse one: a
# dangling link was replaced by the picture, and a live one sent it to the link's target.
echo keep >"$TMPD/target.svg"
ln -s "$TMPD/target.svg" "$TMPD/live.svg"
ln -s "$TMPD/gone.svg" "$TMPD/dangling.svg"
for l in live dangling; do
    expect_bad "a $l link" "$l.svg: a symbolic link, not followed; expected the picture's file name" \
        "$CORUN" plot "$TMPD/r.h5" --out "$TMPD/$l.svg"
    [ -L "$TMPD/$l.svg" ] || fail "the $l link was replaced"
done
[ "$(cat "$TMPD/target.svg")" = keep ] && [ ! -e "$TMPD/gone.svg" ] ||
    fail "a picture was drawn through a link"
# A picture in a directory corun cannot write, the picture itself writable, is drawn over in
# place (it was refused, "Permission denied", though the file could be written); a new one
# there is refused naming the directory. On a full disk nothing is changed, exit 1 (2, and
# cairo's "error while writing to output stream"). As a user other than root in a namespace of
# its own (root writes any directory), on a small tmpfs.
if unshare -rm true 2>/dev/null && unshare -rm unshare --map-user=1000 true 2>/dev/null; then
    mkdir "$TMPD/fs"
    cp "$TMPD/r.h5" "$TMPD/fs.h5"
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare -rm sh -c 'mount -t tmpfs -o size=256k tmpfs "$0/fs" && cd "$0/fs" &&
        cp ../fs.h5 r.h5 && mkdir ro && echo keep >ro/p.svg && echo keep >ro/q.png &&
        echo keep >w.svg && chmod 666 ro/p.svg ro/q.png && chmod 555 ro && chmod 777 . &&
        exec unshare --map-user=1000 --map-group=1000 sh -c "
            $1 plot r.h5 --out ro/p.svg >$0/out 2>$0/err; echo \$? >$0/rc1
            $1 plot r.h5 --out ro/new.svg 2>$0/err2; echo \$? >$0/rc2
            head -c 1000000 /dev/zero >fill 2>/dev/null
            $1 plot r.h5 --out ro/q.png 2>$0/err3; echo \$? >$0/rc3
            $1 plot r.h5 --out w.svg 2>$0/err4; echo \$? >$0/rc4
            cp ro/p.svg w.svg ro/q.png $0/"' \
        "$TMPD" "$CORUN"
    [ "$(cat "$TMPD/rc1")" = 0 ] && grep -q "drew 4 epochs of r.h5 in ro/p.svg" "$TMPD/out" &&
        head -c 200 "$TMPD/p.svg" | grep -q "<svg" ||
        fail "a writable picture in a read-only directory: exit $(cat "$TMPD/rc1"): $(cat "$TMPD/err")"
    [ "$(cat "$TMPD/rc2")" = 2 ] &&
        grep -qx "corun: ro/new.svg: cannot write the picture: Permission denied (making a file in ro)" "$TMPD/err2" ||
        fail "a new picture in a read-only directory: exit $(cat "$TMPD/rc2"): $(cat "$TMPD/err2")"
    for n in 3:ro/q.png 4:w.svg; do
        i=${n%%:*} f=${n#*:}
        [ "$(cat "$TMPD/rc$i")" = 1 ] &&
            grep -qx "corun: $f: cannot write the picture: No space left on device; the picture there is as it was" "$TMPD/err$i" &&
            [ "$(cat "$TMPD/${f#ro/}")" = keep ] ||
            fail "$f on a full disk: exit $(cat "$TMPD/rc$i"): $(cat "$TMPD/err$i"; head -c 20 "$TMPD/${f#ro/}")"
    done
else
    echo "plot: a read-only directory and a full disk not tried: unshare is not allowed here"
fi

# An accelerator run: its task timeline and query latencies, as SVG, a shape per task drawn.
"$CORUN" run "$top_srcdir/tests/data/good/accel-quick.cfg" --predictor prophet --out "$TMPD/a.h5" \
    --catalog "$TMPD/c.db" >"$TMPD/arun" 2>/dev/null || fail "the accelerator run"
tasks=$(sed -n 's/.* \([0-9]*\) tasks done$/\1/p' "$TMPD/arun")
"$CORUN" plot "$TMPD/a.h5" --out "$TMPD/a.svg" >"$TMPD/out" || fail "plot of an accelerator run"
grep -qx "corun: drew $tasks tasks and 6 queries of $TMPD/a.h5 in $TMPD/a.svg" "$TMPD/out" ||
    fail "no summary: $(cat "$TMPD/out")"
if command -v python3 >/dev/null; then
    python3 - "$TMPD/a.svg" "$tasks" <<'PY' || fail "a.svg is not an SVG of 1200x900 with its tasks"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("viewBox") == "0 0 1200 900", root.get("viewBox")
paths = sum(1 for _ in root.iter("{http://www.w3.org/2000/svg}path"))
assert paths > int(sys.argv[2]), paths
PY
fi
expect_bad "an accelerator run to a JPEG" "a.jpg: expected a file name ending in .svg or .png" \
    "$CORUN" plot "$TMPD/a.h5" --out "$TMPD/a.jpg"
echo "plot: SVG and PNG of a recorded run, an accelerator run's timeline, bad input refused"
