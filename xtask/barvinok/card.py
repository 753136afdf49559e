"""barvinok's counts of the sets of a corpus, for `cargo xtask barvinok`.

Reads the corpus (one isl set per line; blank lines and `#` comments skipped) and
prints, per entry, `<index> <count>` with the count as iscc prints it on one line, or
`<index> error <message>`.
"""

import sys

import islpy as isl


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = [l.strip() for l in f]
    entries = [l for l in lines if l and not l.startswith("#")]
    for k, text in enumerate(entries):
        try:
            count = isl.Set(text).card()
            print(k, " ".join(str(count).split()))
        except Exception as e:  # every failure is reported, none stops the run
            print(k, "error", " ".join(str(e).split()))
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
