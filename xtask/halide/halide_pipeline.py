"""What the Halide versions of Pollen's test pipelines share.

Each script of this directory (``blur.py``, ``unsharp.py``, ...) describes one pipeline
of ``examples/pipelines`` with the same stages, the same float arithmetic and the same
sizes as its C program, and calls :func:`main`, which

- reads the C program's size flags (``-DR=2832 -DC=4256 -DPIPELINE_RUNS=5``, the
  manifest's fields), ``--autoscheduler NAME`` (default: all three CPU autoschedulers,
  Adams2019, Li2018 and Mullapudi2016, one after the other) and ``--threads N``
  (default 2: the autoschedulers' ``parallelism`` and ``HL_NUM_THREADS``);
  ``--strict-float`` compiles with Halide's ``strict_float`` (no contraction into
  fused multiply-adds, no reassociation), for checking the arithmetic: the checksums
  are then those of the C program built with ``gcc -ffp-contract=off``, exactly;
- fills the inputs with ``pipeline_input``'s formula (``examples/pipelines/pipeline.h``),
  so that the outputs are those of the C program up to float rounding;
- schedules the pipeline with the autoscheduler, compiles it for the host (Halide's
  default float semantics: no ``strict_float``) and realizes it once as a warm-up and
  then ``PIPELINE_RUNS`` times (at least 1) into preallocated output buffers, Halide
  allocating its intermediate buffers itself at every run;
- prints one line per autoscheduler,
  ``<pipeline> <autoscheduler> <milliseconds> <checksum>...``: the fastest run and one
  checksum per output array, computed as ``kernel_output`` of
  ``examples/kernels/kernel.h`` computes it (the sum over the elements in memory order
  of ``element * (1 + position % 29)``, in double precision and in the same order,
  printed with ``%.17g``), so that equal arrays give the C program's checksums exactly.

An autoscheduler that fails prints ``<pipeline> <autoscheduler> error <message>`` and
makes the script exit with status 1 once the others have run.

A pipeline script gives :func:`main` its name, its size parameters with the C
program's defaults, its inputs (a name, a shape in C order from the sizes, and the seed
of ``pipeline_input``) and a function that builds the stages. Arrays are indexed as in C
(``a[c][x][y]``), and Halide's first dimension is the innermost, so a C access
``a[c][x + 1][y]`` is written ``a[y, x + 1, c]``. Every input is read through
``BoundaryConditions.repeat_edge``: the values read inside the image are unchanged, and
autoschedulers that compute producers over rounded-up tiles (Adams2019 on harris) may
read beyond it.

Every stage is a ``Func`` defined everywhere by the C statement's formula, C's
``x / 2`` of non-negative values being ``x // 2``. Where a C stage computes only part of
its array (the multi-level pipelines), the points the output needs read only points C
computed, so they get C's values; an output array that C computes only in part
(vcycle's and wcycle's u) is a ``select`` of the formula and the zeros C leaves
elsewhere.
"""

import os
import sys
import time

import numpy as np

AUTOSCHEDULERS = {
    "Adams2019": "libautoschedule_adams2019.so",
    "Li2018": "libautoschedule_li2018.so",
    "Mullapudi2016": "libautoschedule_mullapudi2016.so",
}

# The elements summed at a time for a checksum (the sum itself stays sequential).
CHUNK = 1 << 20


def f32(value):
    """A float constant, rounded to single precision as a C ``...f`` literal is."""
    import halide as hl

    return hl.f32(float(np.float32(value)))


def pipeline_input(shape, seed):
    """``pipeline_input`` of ``pipeline.h``: element ``i`` (in memory order) is
    ``(float) ((i * 7919 + seed * 104729) % 1021) / 1021.0f``."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    values = ((i * 7919 + seed * 104729) % 1021).astype(np.float32) / np.float32(1021.0)
    return values.reshape(shape)


def checksum(array):
    """``kernel_output``'s checksum of an array: the sequential sum, in double
    precision, of ``element * (1 + position % 29)`` over the elements in memory order."""
    flat = np.ascontiguousarray(array).reshape(-1)
    total = np.float64(0.0)
    for start in range(0, flat.size, CHUNK):
        part = flat[start : start + CHUNK].astype(np.float64)
        weights = (np.arange(start, start + part.size, dtype=np.int64) % 29 + 1).astype(
            np.float64
        )
        # add.accumulate adds strictly left to right, as the C loop does.
        terms = np.concatenate(([total], part * weights))
        total = np.add.accumulate(terms)[-1]
    return "%.17g" % total


def parse_args(argv, defaults):
    """The sizes (the defaults overridden by ``-DNAME=value`` flags), the number of
    timed runs, the autoschedulers and the threads."""
    sizes = dict(defaults)
    runs = 1
    names = list(AUTOSCHEDULERS)
    threads = 2
    strict = False
    args = iter(argv)
    for arg in args:
        if arg.startswith("-D") and "=" in arg:
            name, value = arg[2:].split("=", 1)
            if name == "PIPELINE_RUNS":
                runs = max(1, int(value))
            else:
                sizes[name] = int(value)
        elif arg == "--autoscheduler":
            names = [next(args)]
            if names[0] not in AUTOSCHEDULERS:
                sys.exit("unknown autoscheduler %s (known: %s)" % (names[0], ", ".join(AUTOSCHEDULERS)))
        elif arg == "--threads":
            threads = int(next(args))
        elif arg == "--strict-float":
            strict = True
        else:
            sys.exit(
                "usage: %s [-DNAME=value]... [--autoscheduler NAME] [--threads N] [--strict-float]"
                % sys.argv[0]
            )
    return sizes, runs, names, threads, strict


def schedule_and_time(hl, sizes, inputs, build, scheduler, runs, threads, strict):
    """Builds the pipeline afresh, schedules it with one autoscheduler, and returns the
    fastest of ``runs`` timed runs (after a warm-up) in seconds and the outputs."""
    # The numpy arrays stay referenced here: a Buffer does not own the memory it wraps.
    held = []
    bounded = {}
    for input_name, shape_of, seed in inputs:
        shape = shape_of(sizes)
        param = hl.ImageParam(hl.Float(32), len(shape), input_name)
        # Halide's dimension 0 is C's last (innermost) one.
        for d, extent in enumerate(reversed(shape)):
            param.dim(d).set_estimate(0, extent)
        held.append(pipeline_input(shape, seed))
        param.set(hl.Buffer(held[-1]))
        bounded[input_name] = hl.BoundaryConditions.repeat_edge(param)
    outputs = build(hl, sizes, bounded)
    for _, func, shape in outputs:
        for var, extent in zip(func.args(), reversed(shape)):
            func.set_estimate(var, 0, extent)
    pipeline = hl.Pipeline([func for _, func, _ in outputs])
    target = hl.get_host_target()
    if strict:
        target = target.with_feature(hl.TargetFeature.StrictFloat)
    pipeline.apply_autoscheduler(
        target, hl.AutoschedulerParams(scheduler, {"parallelism": str(threads)})
    )
    pipeline.compile_jit(target)
    arrays = [np.zeros(shape, dtype=np.float32) for _, _, shape in outputs]
    buffers = [hl.Buffer(a) for a in arrays]
    pipeline.realize(buffers)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        pipeline.realize(buffers)
        best = min(best, time.perf_counter() - start)
    return best, arrays


def main(name, defaults, inputs, build, argv=None):
    """Runs a pipeline with the autoschedulers the command line asks for.

    ``defaults``: the size parameters and the C program's defaults; ``inputs``: a list
    of ``(name, shape_of(sizes), seed)``, the shape in C order; ``build(hl, sizes,
    inputs)``: the stages, from the inputs (``Func``s with a boundary condition) to a
    list of ``(output name, Func, shape in C order)`` in the order of the C program's
    checksum lines."""
    sizes, runs, names, threads, strict = parse_args(sys.argv[1:] if argv is None else argv, defaults)
    os.environ["HL_NUM_THREADS"] = str(threads)
    import halide as hl

    lib = os.path.join(os.path.dirname(hl.__file__), "lib64")
    failed = False
    for scheduler in names:
        try:
            hl.load_plugin(os.path.join(lib, AUTOSCHEDULERS[scheduler]))
            seconds, arrays = schedule_and_time(
                hl, sizes, inputs, build, scheduler, runs, threads, strict
            )
        except Exception as e:  # one autoscheduler's failure does not stop the others
            message = " ".join(str(e).split()) or type(e).__name__
            print("%s %s error %s" % (name, scheduler, message), flush=True)
            failed = True
            continue
        sums = " ".join(checksum(a) for a in arrays)
        print("%s %s %.3f %s" % (name, scheduler, seconds * 1e3, sums), flush=True)
    sys.exit(1 if failed else 0)
