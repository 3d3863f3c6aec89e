"""Measure the book's attention kernels (chapter 9) and print one RESULT line.

    python benchmarks/attention_kernels.py [--repeats N] [--blas-threads N]

In one run, on random float64 inputs with n = m = 2048 and d = d_v = 64:

1. ``scaled_dot_product_attention`` against its two matrix products alone
   (Q K^T and W V with a ready-made (n, m) matrix W): what the softmax, the
   scaling and the bookkeeping cost on top of the arithmetic that cannot be
   avoided.
2. ``online_softmax_attention`` with blocks of 256 keys against the naive
   (full score matrix) ``scaled_dot_product_attention``, in time and in the
   peak of memory allocated during the call (tracemalloc).

The timed calls are interleaved (one repetition of every kernel, then the
next), so that load from other processes hits all of them alike, and the
median over the repetitions is reported.  The last line is

    RESULT {"sdpa_over_gemm": x, "online_over_naive_time": y, "online_over_naive_peak_memory": z}

with the targets x <= 1.5, y <= 2.0, z <= 0.25.

By default nothing here changes the BLAS configuration: the numbers are for
the machine and environment as found (OpenBLAS then uses one thread per core).
A line reports how much of the machine other programs used while it timed.
``--blas-threads N`` runs the measurement with N BLAS threads instead
(OPENBLAS_NUM_THREADS, OMP_NUM_THREADS).  On a machine whose cores are busy
with other programs, every multi-threaded BLAS call can wait for a core that
another program holds, whatever the size of the call; the online version makes
2 calls per block of keys, the naive one 2 in all, so such waits inflate its
time ratio.  With one thread that effect disappears.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

# The book's library, installed with the project (`make book`, or `pip install .`).
from attention.online_softmax import online_softmax_attention
from attention.scaled import scaled_dot_product_attention

N = M = 2048
D = D_V = 64
BLOCK = 256
TARGETS = {"sdpa_over_gemm": 1.5, "online_over_naive_time": 2.0, "online_over_naive_peak_memory": 0.25}


def cpu_counters():
    """(busy, total) CPU time of the whole machine in seconds, from /proc/stat; None elsewhere."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + fields[4]                    # idle + iowait
    return (sum(fields) - idle) / ticks, sum(fields) / ticks


def peak_bytes(function, *args):
    """Peak of the memory allocated while ``function(*args)`` runs (NumPy reports its arrays)."""
    tracemalloc.start()
    try:
        function(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=25, help="timed repetitions of every kernel")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="number of BLAS threads (default: the environment as found)")
    args = parser.parse_args(argv)
    if args.blas_threads is not None and os.environ.get("OPENBLAS_NUM_THREADS") != str(args.blas_threads):
        # BLAS reads its thread count when NumPy is imported: start again with it set.
        threads = str(args.blas_threads)
        environment = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads)
        argv = sys.argv[1:] if argv is None else argv
        os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *argv], environment)

    rng = np.random.default_rng(0)
    Q = rng.normal(size=(N, D))                     # (n, d)
    K = rng.normal(size=(M, D))                     # (m, d)
    V = rng.normal(size=(M, D_V))                   # (m, d_v)
    W = scaled_dot_product_attention(Q, K, V)[1]    # (n, m) a weight matrix for the W V product

    def two_matrix_products():
        Q @ K.T                                     # (n, m): the scores, before any softmax
        return W @ V                                # (n, d_v)

    kernels = {
        "Q K^T and W V alone": two_matrix_products,
        "scaled_dot_product_attention": lambda: scaled_dot_product_attention(Q, K, V),
        f"online_softmax_attention, block {BLOCK}": lambda: online_softmax_attention(Q, K, V, BLOCK),
    }
    gemm, naive, online = kernels

    # Same answer first: the comparison is between two ways of computing one thing.
    difference = float(np.max(np.abs(kernels[online]() - kernels[naive]()[0])))

    for function in kernels.values():               # warm-up: page in the arrays, load BLAS
        function()
    times = {name: [] for name in kernels}
    machine_before, own_before = cpu_counters(), os.times()
    for _ in range(args.repeats):
        for name, function in kernels.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    machine_after, own_after = cpu_counters(), os.times()
    median = {name: statistics.median(values) for name, values in times.items()}
    peaks = {name: peak_bytes(kernels[name]) for name in (naive, online)}

    settings = {name: os.environ[name] for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_CORETYPE")
                if os.environ.get(name)}
    print(f"n = m = {N}, d = d_v = {D}, float64; NumPy {np.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, BLAS settings {settings or 'as found (none set)'}; "
          f"median of {args.repeats} interleaved repetitions")
    print(f"largest |online - naive| = {difference:.1e}")
    print(f"{'kernel':<40}{'median time':>14}{'min time':>12}{'peak memory':>14}")
    for name in kernels:
        peak = f"{peaks[name] / 2**20:10.1f} MiB" if name in peaks else ""
        print(f"{name:<40}{median[name] * 1e3:11.1f} ms{min(times[name]) * 1e3:9.1f} ms{peak:>14}")

    if machine_before and machine_after and machine_after[1] > machine_before[1]:
        own = (own_after.user + own_after.system) - (own_before.user + own_before.system)
        others = max(0.0, (machine_after[0] - machine_before[0]) - own) / (machine_after[1] - machine_before[1])
        print(f"other programs used {100 * others:.0f}% of the machine's CPU time during the timed runs")
        if others > 0.10 and os.environ.get("OPENBLAS_NUM_THREADS") == "1":
            print("WARNING: the machine was busy; the timings are noisier than on an idle machine.")
        elif others > 0.10:
            print("WARNING: the machine was busy; multi-threaded BLAS calls then wait for cores, which "
                  "inflates the time of the online version most (2 calls per block). Rerun on an idle "
                  "machine, or with --blas-threads 1.")

    result = {
        "sdpa_over_gemm": round(median[naive] / median[gemm], 3),
        "online_over_naive_time": round(median[online] / median[naive], 3),
        "online_over_naive_peak_memory": round(peaks[online] / peaks[naive], 3),
    }
    for key, value in result.items():
        verdict = "meets" if value <= TARGETS[key] else "MISSES"
        print(f"{key:<32}{value:8.3f}   target <= {TARGETS[key]}: {verdict}")
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
