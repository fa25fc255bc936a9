#!/usr/bin/env python3
"""scaleout-rows.py - the scale-out study's cluster table from its rows.

`corun reproduce prophet --scaleout --resume FILE` prints the cluster's day only from a journal
that holds all 385 cells, and only with a build of the simulator that made it. docs/accelerator.md
holds all 385 as rows (LS, batch, load, and each decider's instances and measured p99 over the
p99 alone); this reads those rows, and the kept journal's records where it has them (the kept
one has all 385), and applies the rules of so_summarize (src/app/reproduce_scaleout.c) to print
the same table, then prophet's choice in every cell, whatever build is at hand. The SM busy
share is in the records, not the rows: the table has it when the journal holds every cell. A
journal record whose cell has a row must agree with it to the row's two decimals.

Usage:  tools/scaleout-rows.py docs/accelerator.md [docs/journals/prophet-scaleout.journal]
"""
import re
import signal
import struct
import sys

LS = ["asr", "gmm", "stemmer", "dig", "imc", "ner", "pos"]
BATCH = ["hw", "md", "kms", "mc", "bp", "bfs", "pf", "hs", "nn", "bfs-ex", "pf-ex"]
LOADS = [10, 16, 30, 44, 50]  # % of the rate served alone, at the 5 load levels
DECIDERS = ["prophet", "sequential", "bubble", "full"]
TARGET = 1 / 0.7  # the 70 % policy
GPUS, SLOTS, POOL, MAX_K, PROCS = 700, 8, 11000, 15, 16
ROW = re.compile(r"\| (\w[\w-]*) \| (\w[\w-]*) \| (\d+) % \|(.*)\|\s*$")


def doc_cells(path):
    """(ls, batch, load) -> [(k, p99 ratio, over the target)] per decider, from the doc's rows."""
    cells = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = ROW.match(line)
            if not m or m.group(1) not in LS:
                continue
            if m.group(2) not in BATCH or int(m.group(3)) not in LOADS:
                sys.exit(f"{path}:{n}: expected a batch application of {BATCH} "
                         f"and a load of {LOADS} %")
            row = []
            for field in m.group(4).split("|"):
                cm = re.fullmatch(r"\s*(\d+), (∞|\d+\.\d+)×(\*?)\s*", field)
                if not cm:
                    sys.exit(f"{path}:{n}: expected 'instances, ratio×' for each decider, "
                             f"found '{field.strip()}'")
                x = float("inf") if cm.group(2) == "∞" else float(cm.group(2))
                row.append((int(cm.group(1)), x, cm.group(3) == "*"))
            if len(row) != len(DECIDERS):
                sys.exit(f"{path}:{n}: expected {len(DECIDERS)} deciders, found {len(row)}")
            cells[(m.group(1), m.group(2), int(m.group(3)))] = row
    return cells


def journal_cells(path):
    """The same from a journal's records (exact ratios where the rows have two decimals), and
    each cell's SM busy share of what each decider chose, none included.

    The layout is src/app/reproduce_journal.c's (two header lines, then records of "REC1", part,
    index and size as uint32, the payload, a uint64 checksum) with a struct so_cell_record
    (include/corun/reproduce_scaleout.h) as the payload: k[5] int32 at 0, p99_x[16] double at
    40, gpu_util[16] double at 168, on the little-endian x86-64 machine that wrote it. Cell
    index = (ls * 11 + batch) * 5 + load level."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n", 2)
    m = re.search(rb" \| result (\d+) bytes", lines[1]) if len(lines) == 3 else None
    if not lines[0].startswith(b"corun reproduce journal ") or not m:
        sys.exit(f"{path}: expected a journal of corun reproduce prophet --scaleout")
    size = int(m.group(1))
    rec = 24 + size
    body = lines[2]
    if size < 296 or len(body) % rec:
        sys.exit(f"{path}: expected records of {rec} bytes, found {len(body)} bytes of them")
    cells, busy_of = {}, {}
    for i in range(0, len(body), rec):
        r = body[i:i + rec]
        index = struct.unpack("<I", r[8:12])[0]
        if r[0:4] != b"REC1" or index >= len(LS) * len(BATCH) * len(LOADS):
            at = len(lines[0]) + len(lines[1]) + 2 + i
            sys.exit(f"{path}: record at byte {at}: expected REC1 and a cell index below 385")
        p = r[16:16 + size]
        k = struct.unpack("<5i", p[0:20])
        x = struct.unpack("<16d", p[40:168])
        busy = struct.unpack("<16d", p[168:296])
        key = (LS[index // 55], BATCH[index // 5 % 11], LOADS[index % 5])
        cells[key] = [(k[d], x[k[d]], x[k[d]] > TARGET) for d in range(1, 5)]
        busy_of[key] = [busy[k[d]] for d in range(5)]
    return cells, busy_of


def gpu_cells(slot):
    """The cell of each LS GPU in a slot: its LS application, its batch one, the slot's load."""
    per_ls, level = GPUS // len(LS), min(slot, SLOTS - slot)
    return [(LS[g // per_ls], BATCH[g % len(BATCH)], LOADS[level]) for g in range(GPUS)]


def summarize(cells, busy_of):
    """Each decider's day as so_summarize sums it; its SM busy share None unless busy_of holds
    every cell."""
    out = {}
    for d, name in enumerate(DECIDERS):
        gpus_total = gpus_peak = placed_total = co = over = over10 = 0
        share = busy = 0.0
        for slot in range(SLOTS):
            placed = 0
            for key in gpu_cells(slot):
                k, x, star = cells[key][d]
                if busy_of is not None:
                    busy += busy_of[key][d + 1]
                placed += k
                share += k / MAX_K
                if k > 0:
                    co += 1
                    over += star
                    over10 += x > 1.1 * TARGET
            gpus = GPUS + (max(POOL - placed, 0) + PROCS - 1) // PROCS
            gpus_peak = max(gpus_peak, gpus)
            gpus_total += gpus
            placed_total += placed
        out[name] = (gpus_total / SLOTS, gpus_peak, placed_total / SLOTS,
                     share / (GPUS * SLOTS), None if busy_of is None else busy / (GPUS * SLOTS),
                     co, over, over10)
    return out


def none_busy(busy_of):
    """The SM busy share with nothing co-located (every LS GPU alone at its slot's load)."""
    busy = sum(busy_of[key][0] for slot in range(SLOTS) for key in gpu_cells(slot))
    return busy / (GPUS * SLOTS)


def fmt(x):
    return "∞" if x == float("inf") else f"{x:.2f}"


def shown(row):
    """A cell's deciders as its row shows them: instances, ratio to two decimals, the star."""
    return [(k, fmt(x), star) for k, x, star in row]


def th(v):
    return f"{v:,}".replace(",", " ")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().split("\n\n")[-1])
    cells, busy_of = doc_cells(sys.argv[1]), None
    if len(sys.argv) == 3:
        kept, busy_of = journal_cells(sys.argv[2])
        for key, row in kept.items():  # a record and its row must say the same
            if key in cells and shown(row) != shown(cells[key]):
                sys.exit(f"{sys.argv[1]}: the row of {key[0]} beside {key[1]} at {key[2]} % "
                         f"differs from {sys.argv[2]}'s record of it")
        cells.update(kept)
    missing = [(l, b, v) for l in LS for b in BATCH for v in LOADS if (l, b, v) not in cells]
    if missing:
        sys.exit(f"{sys.argv[1]}: {len(missing)} of the 385 cells have no row, "
                 f"the first {missing[0][0]} beside {missing[0][1]} at {missing[0][2]} %")
    if busy_of is not None and len(busy_of) < len(cells):
        busy_of = None  # the rows alone do not carry it
    sm = busy_of is not None
    print("| decider | GPUs used (mean / peak) | batch on LS GPUs (mean) | MPS slots "
          + ("| SM busy (LS GPUs) " if sm else "")
          + "| co-located GPU-slots | over the target | over 1.1 × the target |")
    print("|---|---|---|---|---|---|---|" + ("---|" if sm else ""))
    rest = (POOL + PROCS - 1) // PROCS
    print(f"| none | {th(GPUS + rest)} / {th(GPUS + rest)} | 0 | 0 % | "
          + (f"{100 * none_busy(busy_of):.1f} % | " if sm else "") + "0 | – | – |")
    for name, (mean, peak, placed, share, busy, co, over, over10) in \
            summarize(cells, busy_of).items():
        pct = (lambda v: f"{th(v)} ({100 * v / co:.1f} %)") if co else (lambda v: "–")
        print(f"| {name} | {th(round(mean))} / {th(peak)} | {th(round(placed))} "
              f"| {100 * share:.1f} % | " + (f"{100 * busy:.1f} % | " if sm else "")
              + f"{th(co)} of {th(GPUS * SLOTS)} | {pct(over)} | {pct(over10)} |")
    print()
    print("| LS | load | " + " | ".join(BATCH) + " |")
    print("|---|---|" + "---|" * len(BATCH))
    for l in LS:
        for v in LOADS:
            row = []
            for b in BATCH:
                k, x, star = cells[(l, b, v)][0]
                row.append("–" if k == 0 else f"{k}: {fmt(x)}×" + ("*" if star else ""))
            print(f"| {l} | {v} % | " + " | ".join(row) + " |")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly, as a C tool
    main()
