"""Times the benchmark corpus with isl (through islpy) for `cargo xtask bench presburger`.

Reads the corpus file given as the first argument and prints two lines per entry:
    <index> <seconds per parse + operation> <seconds per operation alone>
    <index> answer <the result as isl prints it, on one line>
`--skip OP` leaves out the entries of operation OP, `--only OP` times only those (the
operation `card` needs barvinok: `cargo xtask bench presburger` times it with the
`islpy-barvinok` package, everything else with plain `islpy`).

Every repetition parses the operands afresh from their text (isl does part of the work
while reading: it may already detect emptiness, equalities or redundant constraints) and
then runs the operation; the first number times both, the second only the operation. An
entry is repeated until it has run (parse included) for 50 ms or 10,000 times. The times
include the cost of the islpy calls themselves (well below a microsecond per call).
"""
import sys
import time

import islpy as isl


def reader(text):
    """The islpy constructor that reads `text` (found once, outside the timed loop, so
    that a failed attempt at reading a map as a set is never timed)."""
    for kind in (isl.Set, isl.Map, isl.UnionMap):
        try:
            kind(text)
            return kind
        except isl.Error:
            pass
    raise ValueError("isl cannot read " + text)


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
    if op == "transitive_closure":
        return a.transitive_closure()
    if op == "complement":
        return a.complement()
    if op == "compute_divs":
        return a.compute_divs()
    if op == "card":
        # barvinok's count (islpy-barvinok); plain islpy has no `card`.
        return a.card()
    raise ValueError("unknown operation " + op)


def main():
    keep = lambda op: True
    if len(sys.argv) == 4 and sys.argv[2] == "--skip":
        keep = lambda op: op != sys.argv[3]
    elif len(sys.argv) == 4 and sys.argv[2] == "--only":
        keep = lambda op: op == sys.argv[3]
    elif len(sys.argv) != 2:
        raise SystemExit("usage: isl_bench.py CORPUS [--skip OP | --only OP]")
    entries = []
    with open(sys.argv[1]) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            entries.append((fields[1], fields[2:]))
    for index, (op, texts) in enumerate(entries):
        if not keep(op):
            continue
        # Parse fresh objects for every repetition: islpy objects are immutable, but
        # isl caches some derived facts on them.
        readers = [reader(t) for t in texts]
        reps = 0
        total = 0.0
        op_only = 0.0
        while total < 0.05 and reps < 10000:
            start = time.perf_counter()
            args = [read(t) for read, t in zip(readers, texts)]
            parsed = time.perf_counter()
            run(op, args)
            done = time.perf_counter()
            total += done - start
            op_only += done - parsed
            reps += 1
        print(index, total / reps, op_only / reps, flush=True)
        # The answer, on one line, for `cargo xtask bench` to compare with Pollen's.
        answer = run(op, [read(t) for read, t in zip(readers, texts)])
        if isinstance(answer, tuple):
            # transitive_closure: the map and whether it is exact.
            answer = ("exact " if answer[1] else "approximate ") + str(answer[0])
        print(index, "answer", " ".join(str(answer).split()), flush=True)


if __name__ == "__main__":
    main()
