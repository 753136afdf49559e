"""isl's transitive closures of the maps of a corpus, for `cargo xtask closure`.

Usage: closure.py CORPUS MAX_OPERATIONS

Reads the corpus (one isl map per line; blank lines and `#` comments skipped) and
prints, per entry, `<index> <exact> <seconds> <closure>`: `exact` is 1 when isl claims
the closure exact, 0 for an over-approximation; `seconds` is the fastest of repeated
runs of `transitive_closure` alone (the map is read once, before the clock starts);
the closure is printed on one line. An entry isl cannot read, or whose closure fails
or takes more than MAX_OPERATIONS of isl's operations, prints
`<index> error <message>`.
"""

import sys
import time

import islpy as isl

# Repetitions stop once their total reaches this many seconds, or after MAX_RUNS runs.
MIN_TOTAL = 0.05
MAX_RUNS = 100


def closure(ctx, m, max_operations):
    ctx.set_max_operations(max_operations)
    ctx.reset_operations()
    try:
        return m.transitive_closure()
    finally:
        ctx.set_max_operations(0)


def main(path, max_operations):
    ctx = isl.DEFAULT_CONTEXT
    with open(path, encoding="utf-8") as f:
        lines = [l.strip() for l in f]
    entries = [l for l in lines if l and not l.startswith("#")]
    for k, text in enumerate(entries):
        try:
            m = isl.Map(text)
            result, exact = closure(ctx, m, max_operations)
            runs, total, best = 0, 0.0, float("inf")
            while runs < MAX_RUNS and total < MIN_TOTAL:
                start = time.perf_counter()
                closure(ctx, m, max_operations)
                elapsed = time.perf_counter() - start
                runs += 1
                total += elapsed
                best = min(best, elapsed)
            print(k, int(bool(exact)), f"{best:.9f}", " ".join(str(result).split()))
        except Exception as e:  # every failure is reported, none stops the run
            print(k, "error", " ".join(str(e).split()))
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
