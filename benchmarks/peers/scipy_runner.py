#!/usr/bin/env python3
# scipy.sparse as a peer: times SpMV, SpGEMM, sparse add, SDDMM and triangle
# counting on the inputs that bench.peers exported (`peers --export=DIR`: the same generated
# matrices, same seeds, and the real matrices), checks every result against the hand-written
# kernel's (same entries, values to 1e-10 relative), and writes the timings in Google
# Benchmark's JSON layout (BM_<workload>/<input>/scipy), so tools/bench_report.py reads them like
# the C++ systems' rows.
#
# Timing follows Google Benchmark: per repetition, the operation runs until at least --min-time
# seconds have passed (at least once); the repetition's time is the mean per call, CPU time
# (time.process_time) and wall time (time.perf_counter). scipy.sparse runs on one thread.
#
# The operations, as a scipy user writes them:
#   spmv       A @ x
#   spgemm     A @ B                  (result's indices sorted, as every other system returns them)
#   add        A + B
#   sddmm      S.data * einsum('ij,ij->i', U[rows], V[S.indices]), a CSR result with S's
#              pattern (scipy has no sampled product; S.multiply(U @ V.T) would be dense)
#   triangles  (A @ A).multiply(A).sum()
#
# usage: scipy_runner.py --data DIR --out FILE.json [--repetitions 5] [--min-time 0.5]
#                        [--filter REGEX]
# SPDX-License-Identifier: BSL-1.0
import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp


def load(data, spec):
    if spec["kind"] == "csr":
        rows, cols = spec["shape"]
        pos = np.fromfile(data / spec["pos"], dtype=np.int64)
        crd = np.fromfile(data / spec["crd"], dtype=np.int32)
        val = np.fromfile(data / spec["val"], dtype=np.float64)
        # scipy's own index type (int32 when it fits), as a scipy user's matrix would have
        m = sp.csr_matrix((val, crd, pos), shape=(rows, cols))
        m.has_sorted_indices = True
        return m
    if spec["kind"] == "dense":
        return np.fromfile(data / spec["val"], dtype=np.float64).reshape(spec["shape"])
    if spec["kind"] == "scalar":
        return spec["value"]
    raise ValueError(spec["kind"])


def close(got, want, rel=1e-10):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    return got.shape == want.shape and bool(
        np.all(np.abs(got - want) <= rel * np.maximum(1.0, np.maximum(np.abs(got), np.abs(want)))))


def same_csr(got, want):
    return (got.shape == want.shape and np.array_equal(got.indptr, want.indptr)
            and np.array_equal(got.indices, want.indices) and close(got.data, want.data))


def check(what, got, want):
    if isinstance(want, sp.csr_matrix):
        got = sp.csr_matrix(got)
        got.sort_indices()
        ok = same_csr(got, want)
        if not ok:
            # scipy's SpGEMM drops entries that cancel to exactly 0.0 (the others store them):
            # then the results must agree once the explicit zeros are removed from both
            got, want = got.copy(), want.copy()
            got.eliminate_zeros()
            want.eliminate_zeros()
            ok = same_csr(got, want)
            if ok:
                print(f"{what}: equal up to explicitly stored zeros", flush=True)
    else:
        ok = close(got, want)
    if not ok:
        sys.exit(f"scipy_runner.py: {what}: scipy's result differs from the hand-written kernel's")


def sddmm(S, U, V):
    rows = np.repeat(np.arange(S.shape[0], dtype=S.indices.dtype), np.diff(S.indptr))
    vals = S.data * np.einsum("ij,ij->i", U[rows], V[S.indices])
    return sp.csr_matrix((vals, S.indices.copy(), S.indptr.copy()), shape=S.shape)


def spgemm(A, B):
    C = A @ B
    C.sort_indices()
    return C


OPS = {
    "spmv": lambda o: o["A"] @ o["x"],
    "spgemm": lambda o: spgemm(o["A"], o["B"]),
    "add": lambda o: o["A"] + o["B"],
    "sddmm": lambda o: sddmm(o["S"], o["U"], o["V"]),
    "triangles": lambda o: (o["A"] @ o["A"]).multiply(o["A"]).sum(),
}


def workload_op(workload):
    return OPS.get(workload.removeprefix("sweep_"))


def time_reps(fn, repetitions, min_time):
    reps = []
    for _ in range(repetitions):
        n, c0, w0 = 0, time.process_time(), time.perf_counter()
        while True:
            fn()
            n += 1
            if time.perf_counter() - w0 >= min_time:
                break
        reps.append((n, (time.process_time() - c0) / n, (time.perf_counter() - w0) / n))
    return reps


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--filter", default="")
    args = ap.parse_args()
    data = pathlib.Path(args.data)
    items = [json.loads(line) for line in (data / "manifest.jsonl").read_text().splitlines() if line]
    benchmarks = []
    for item in items:
        name = f"BM_{item['workload']}/{item['input']}/scipy"
        op = workload_op(item["workload"])
        if op is None or (args.filter and not re.search(args.filter, name)):
            continue
        operands = {k: load(data, v) for k, v in item["operands"].items()}
        want = load(data, item["reference"])
        check(name, op(operands), want)  # also the warm-up call
        reps = time_reps(lambda: op(operands), args.repetitions, args.min_time)
        for k, (n, cpu, wall) in enumerate(reps):
            benchmarks.append({
                "name": name, "run_name": name, "run_type": "iteration", "repetitions": args.repetitions,
                "repetition_index": k, "threads": 1, "iterations": n,
                "real_time": wall * 1e3, "cpu_time": cpu * 1e3, "time_unit": "ms",
                "nnz": item["nnz"], "label": "scipy.sparse " + scipy.__version__,
            })
        med = sorted(r[1] for r in reps)[len(reps) // 2]
        print(f"{name:<50} {med * 1e3:10.3f} ms CPU (median of {len(reps)})", flush=True)
        del operands, want
    out = {
        "context": {
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "host_name": platform.node(),
            "executable": "benchmarks/peers/scipy_runner.py",
            "num_cpus": os.cpu_count(),
            "load_avg": list(os.getloadavg()),
            "python": platform.python_version(),
            "scipy": scipy.__version__,
            "numpy": np.__version__,
            "threads": "1",
            "library_build_type": "release",
        },
        "benchmarks": benchmarks,
    }
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
