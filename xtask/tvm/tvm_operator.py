"""What the TVM versions of Pollen's tensor programs share.

Each script of this directory (``matmul.py``, ``conv2d_3x3.py``, ...) describes one
program of ``examples/tensor`` with TVM's tensor expressions (``te.compute``): the same
inputs in the same order, the same stages and the same float32 arithmetic, and calls
:func:`main`, which

- reads the C program's size flags (``-DM=128 -DN=3072 -DK=768``; sizes not given keep
  the script's defaults, those of the ``.te`` file), ``--mode default|tuned|both``
  (default both), ``--trials N`` (MetaSchedule's ``max_trials_global``, default 64),
  ``--runs N`` (timed runs, default 5), ``--threads N`` (default 2), ``--work-dir
  DIR`` (MetaSchedule's logs and database, default a temporary directory), ``--export
  DIR`` (each mode's build is also saved as ``DIR/<mode>.so``) and ``--load DIR``
  (nothing is built or tuned: each mode's module is loaded from ``DIR/<mode>.so``, as
  an earlier run with ``--export DIR`` saved it, and timed and checked again: the
  bench's later rounds, which time TVM's builds between Pollen's);
- fills the inputs with ``pollen te``'s formula (``init_coefficients`` of
  ``crates/tensor/src/eval.rs``): element ``x`` of input number ``t`` of rank ``r`` is
  ``(float) ((sum_d c_d x_d + 2 t + 1) % 37) / 9 - 2`` with ``c_d`` the prime number
  ``(t + 2 d) % 7`` of ``3, 5, 7, 11, 13, 17, 19``, so that the outputs are those of
  the C program up to float rounding;
- builds the operator for the host CPU, named (``llvm_get_system_cpu``) with
  ``num-cores`` set to the threads, once with TVM's default lowering of the tensor
  expressions (no schedule) and once tuned by MetaSchedule, and times each with
  ``time_evaluator`` (one warm-up, then the fastest of the runs) on ``TVM_NUM_THREADS``
  threads; MetaSchedule builds and measures its candidates with ``--threads`` workers and
  the limits ``BUILD_TIMEOUT_S`` and ``RUN_TIMEOUT_S``;
- prints one line per mode, ``<program> <mode> <milliseconds> <checksum> <magnitude>
  ...``: per output, its checksum, computed as ``operator_output`` of
  ``examples/operators/operators.h`` computes it (the sum over the elements in memory
  order of ``element * (1 + position % 29)``, in double precision and in the same
  order), and the same sum of the elements' absolute values, the scale against which a
  difference of checksums is measured (a checksum of elements of both signs cancels).

A mode that fails prints ``<program> <mode> error <message>`` and makes the script exit
with status 1 once the other has run.

A program script gives :func:`main` its name, its size parameters with the ``.te``
file's defaults, its inputs (a name and a function from the sizes to the shape) and a
function from the sizes and the input placeholders to the outputs.
"""

import argparse
import os
import sys
import tempfile
import traceback

import numpy as np

PRIMES = [3, 5, 7, 11, 13, 17, 19]

# MetaSchedule's limits for building and for running one candidate, in seconds: its
# defaults (30 s each) count the start of a worker process that imports TVM, which a
# busy machine can take longer than that for, and then every candidate fails.
BUILD_TIMEOUT_S = 300
RUN_TIMEOUT_S = 120


def tensor_input(t, shape):
    """Input number ``t`` of ``pollen te``'s programs at ``shape``, as float32."""
    total = np.full(shape, 2 * t + 1, dtype=np.int64)
    for d, extent in enumerate(shape):
        index = np.arange(extent, dtype=np.int64).reshape(
            [extent if e == d else 1 for e in range(len(shape))]
        )
        total = total + PRIMES[(t + 2 * d) % len(PRIMES)] * index
    return (total % 37).astype(np.float32) / np.float32(9) - np.float32(2)


def checksum(array, absolute=False):
    """``operator_output``'s checksum: the sequential double sum, in memory order, of
    ``element * (1 + position % 29)``; of ``|element| * (1 + position % 29)`` with
    ``absolute``."""
    flat = np.ascontiguousarray(array).reshape(-1).astype(np.float64)
    if absolute:
        flat = np.abs(flat)
    weights = (1 + np.arange(flat.size, dtype=np.int64) % 29).astype(np.float64)
    if flat.size == 0:
        return 0.0
    return float(np.cumsum(flat * weights)[-1])


def read_arguments(argv, params):
    """The sizes (``-DNAME=value`` flags over ``params``) and the other options."""
    sizes = dict(params)
    rest = []
    for arg in argv:
        if arg.startswith("-D") and "=" in arg:
            name, value = arg[2:].split("=", 1)
            if name in sizes:
                sizes[name] = int(value)
        else:
            rest.append(arg)
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["default", "tuned", "both"], default="both")
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--work-dir", default=None)
    parser.add_argument("--export", default=None)
    parser.add_argument("--load", default=None)
    return sizes, parser.parse_args(rest)


def host_target(threads):
    """The host CPU named explicitly (``-mcpu=native`` is refused or ignored)."""
    import tvm

    return tvm.target.Target(
        {
            "kind": "llvm",
            "mcpu": tvm.target.codegen.llvm_get_system_cpu(),
            "num-cores": threads,
        }
    )


def time_module(lib, arrays, runs):
    """The fastest of ``runs`` runs of the module's ``main``, in milliseconds."""
    import tvm

    timer = lib.time_evaluator(
        "main", tvm.cpu(0), number=1, repeat=max(runs, 1), min_repeat_ms=0
    )
    lib["main"](*arrays)
    result = timer(*arrays)
    return min(result.results) * 1e3


def export(executable, directory, mode):
    """The module of a compiled ``executable``, saved first as ``<directory>/<mode>.so``
    where a directory is given."""
    if directory:
        path = os.path.join(directory, f"{mode}.so")
        if os.path.exists(path):
            os.remove(path)
        executable.export_library(path)
    return executable.jit()


def main(name, params, inputs, build):
    """Builds, times and checks one program in the modes asked for (see the module)."""
    sizes, options = read_arguments(sys.argv[1:], params)
    os.environ.setdefault("TVM_NUM_THREADS", str(options.threads))
    import tvm
    from tvm import te

    placeholders = [
        te.placeholder(tuple(shape(sizes)), name=input_name, dtype="float32")
        for input_name, shape in inputs
    ]
    outputs = build(sizes, *placeholders)
    if not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    func = te.create_prim_func(list(placeholders) + list(outputs))
    mod = tvm.IRModule({"main": func})
    target = host_target(options.threads)
    device = tvm.cpu(0)

    values = [
        tensor_input(t, tuple(int(e) for e in p.shape)) for t, p in enumerate(placeholders)
    ]
    modes = ["default", "tuned"] if options.mode == "both" else [options.mode]
    failed = False
    if options.export:
        os.makedirs(options.export, exist_ok=True)
    for mode in modes:
        try:
            if options.load:
                lib = tvm.runtime.load_module(os.path.join(options.load, f"{mode}.so"))
            elif mode == "default":
                lib = export(tvm.compile(mod, target=target), options.export, mode)
            else:
                from tvm.s_tir import meta_schedule as ms

                work_dir = options.work_dir or tempfile.mkdtemp(prefix=f"tvm-{name}-")
                os.makedirs(work_dir, exist_ok=True)
                database = ms.tune_tir(
                    mod,
                    target,
                    work_dir=work_dir,
                    max_trials_global=options.trials,
                    num_trials_per_iter=min(64, options.trials),
                    num_tuning_cores=options.threads,
                    builder=ms.builder.LocalBuilder(
                        max_workers=options.threads, timeout_sec=BUILD_TIMEOUT_S
                    ),
                    runner=ms.runner.LocalRunner(timeout_sec=RUN_TIMEOUT_S),
                )
                schedule = ms.tir_integration.compile_tir(database, mod, target)
                if schedule is None:
                    raise RuntimeError("MetaSchedule found no valid schedule")
                lib = export(tvm.compile(schedule.mod, target=target), options.export, mode)
            arrays = [tvm.runtime.tensor(v, device) for v in values]
            arrays += [
                tvm.runtime.tensor(
                    np.zeros([int(e) for e in out.shape], dtype="float32"), device
                )
                for out in outputs
            ]
            ms_time = time_module(lib, arrays, options.runs)
            sums = []
            for a in arrays[len(values):]:
                result = a.numpy()
                sums += [checksum(result), checksum(result, absolute=True)]
            print(f"{name} {mode} {ms_time:.6f} " + " ".join(f"{s:.17g}" for s in sums))
        except Exception as error:  # noqa: BLE001 - every failure is reported the same way
            traceback.print_exc()
            message = " ".join(str(error).split()) or type(error).__name__
            print(f"{name} {mode} error {message[:300]}")
            failed = True
        sys.stdout.flush()
    sys.exit(1 if failed else 0)


def f32(value):
    """A float32 constant, rounded as a C ``...f`` literal is."""
    import tvm

    return tvm.tirx.const(float(np.float32(value)), "float32")


def pad(X, sizes, value, name="P"):
    """``pad(X, [0, 0, 1, 1], [0, 0, 1, 1], value)`` of an NCHW tensor: one row and one
    column of ``value`` on every side of the spatial dimensions."""
    from tvm import te, tirx

    n, c, h, w = (int(e) for e in X.shape)
    return te.compute(
        (n, c, h + 2, w + 2),
        lambda a, b, y, x: tirx.if_then_else(
            tirx.all(y >= 1, y < h + 1, x >= 1, x < w + 1),
            X[a, b, y - 1, x - 1],
            f32(value),
        ),
        name=name,
    )
