"""Times the benchmark corpus with isl (through islpy) for `cargo xtask bench presburger`.

Reads the corpus file given as the first argument and prints one line per entry:
    <index> <seconds per operation>
"""
import sys
import time

import islpy as isl


def parse(text):
    try:
        return isl.Set(text)
    except isl.Error:
        pass
    try:
        return isl.Map(text)
    except isl.Error:
        return isl.UnionMap(text)


def run(op, args):
    a = args[0]
    b = args[1] if len(args) > 1 else None
    if op == "apply_range":
        return a.apply_range(b)
    if op == "intersect":
        return a.intersect(b)
    if op == "union":
        return a.union(b)
    if op == "subtract":
        return a.subtract(b)
    if op == "is_empty":
        return a.is_empty()
    if op == "is_subset":
        return a.is_subset(b)
    if op == "is_equal":
        return a.is_equal(b)
    if op == "lexmin":
        return a.lexmin()
    if op == "lexmax":
        return a.lexmax()
    if op == "coalesce":
        return a.coalesce()
    if op == "deltas":
        return a.deltas()
    raise ValueError("unknown operation " + op)


def main():
    entries = []
    with open(sys.argv[1]) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            entries.append((fields[1], fields[2:]))
    for index, (op, texts) in enumerate(entries):
        # Parse fresh objects for every repetition: islpy objects are immutable, but
        # isl caches some derived facts on them.
        reps = 0
        total = 0.0
        while total < 0.05 and reps < 10000:
            args = [parse(t) for t in texts]
            start = time.perf_counter()
            run(op, args)
            total += time.perf_counter() - start
            reps += 1
        print(index, total / reps, flush=True)


if __name__ == "__main__":
    main()
