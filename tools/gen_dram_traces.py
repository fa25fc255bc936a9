#!/usr/bin/env python3
"""gen_dram_traces.py - write DRAM request traces for `corun dram-trace` and `corun bench --traces`.

The format is Ramulator's plain-text one: a request per line, "0x<hex address> R" or "... W".
Four address patterns, each reproducible from its seed:

  stream   request i at i * SIZE                      (sequential: nearly every access hits
                                                        an open row)
  random   uniform over a 4 GiB span, SIZE-aligned    (almost no row locality)
  mix      the previous address + SIZE with probability P, else a random one
  mix2k    the previous address + 2048 B with probability P, else a random one (with the
           channel in the address bits just above the request offset, +2 KiB lands in the
           same row of the same channel on a 32-channel, 64 B-interleaved memory)

Example:  tools/gen_dram_traces.py -n 200000 -o traces && corun bench --traces traces
"""
import argparse
import os
import random
import sys

SPAN_BYTES = 4 << 30
PATTERNS = ("stream", "random", "mix", "mix2k")


def addresses(pattern, count, size, p_continue, seed):
    """Yield count request addresses of the given pattern."""
    rng = random.Random(seed)
    slots = SPAN_BYTES // size
    prev = 0
    for i in range(count):
        if pattern == "stream":
            addr = i * size % SPAN_BYTES
        elif pattern == "random" or i == 0 or rng.random() >= p_continue:
            addr = rng.randrange(slots) * size
        else:
            addr = (prev + (size if pattern == "mix" else 2048)) % SPAN_BYTES
        prev = addr
        yield addr


def write_trace(path, pattern, args):
    rng = random.Random(args.seed + 1)  # the read/write choice, apart from the addresses
    with open(path, "w", encoding="ascii") as out:
        chunk = []
        for addr in addresses(pattern, args.num, args.size, args.p_cont, args.seed):
            kind = "W" if args.write_frac > 0 and rng.random() < args.write_frac else "R"
            chunk.append("0x%x %s\n" % (addr, kind))
            if len(chunk) == 1 << 16:
                out.write("".join(chunk))
                chunk = []
        out.write("".join(chunk))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("-n", "--num", type=int, default=1000000, help="requests per trace")
    ap.add_argument("-o", "--outdir", default=".", help="directory for PATTERN.trace files")
    ap.add_argument("--size", type=int, default=64, help="request size in bytes (a power of 2)")
    ap.add_argument("--write-frac", type=float, default=0.0, help="share of writes, 0 to 1")
    ap.add_argument("--p-cont", type=float, default=0.5,
                    help="mix and mix2k: probability of continuing from the last address")
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--patterns", default=",".join(PATTERNS),
                    help="comma-separated subset of " + ", ".join(PATTERNS))
    args = ap.parse_args()
    wanted = args.patterns.split(",")
    bad = [p for p in wanted if p not in PATTERNS]
    if bad:
        ap.error("unknown pattern %s (expected %s)" % (", ".join(bad), ", ".join(PATTERNS)))
    if args.num < 1:
        ap.error("--num: expected at least 1 request, got %d" % args.num)
    if args.size < 1 or args.size & (args.size - 1):
        ap.error("--size: expected a power of 2, got %d" % args.size)
    if not 0 <= args.write_frac <= 1 or not 0 <= args.p_cont <= 1:
        ap.error("--write-frac and --p-cont: expected numbers from 0 to 1")
    os.makedirs(args.outdir, exist_ok=True)
    for pattern in wanted:
        path = os.path.join(args.outdir, pattern + ".trace")
        write_trace(path, pattern, args)
        print("wrote %s: %d requests" % (path, args.num))
    return 0


if __name__ == "__main__":
    sys.exit(main())
