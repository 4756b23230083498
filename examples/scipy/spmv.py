#!/usr/bin/env python3
"""Runs loom's SpMV (libloom_spmv, built from loom_spmv.cpp) on a scipy.sparse matrix through
ctypes, and checks it against scipy's own product. Exits 77 (skipped) without numpy and scipy.

usage: spmv.py path/to/libloom_spmv.so
SPDX-License-Identifier: BSL-1.0
"""
import ctypes
import sys

try:
    import numpy as np
    import scipy.sparse
except ImportError as missing:
    print(f"skipped: {missing.name} is not installed (Debian: python3-numpy python3-scipy)")
    sys.exit(77)

lib = ctypes.CDLL(sys.argv[1])
lib.loom_spmv.argtypes = [ctypes.c_int64, ctypes.c_int64] + [ctypes.c_void_p] * 5
lib.loom_spmv.restype = None

A = scipy.sparse.random(2000, 1500, density=0.01, format="csr", random_state=7)
A.indptr, A.indices = A.indptr.astype(np.int32), A.indices.astype(np.int32)
x = np.random.default_rng(7).standard_normal(A.shape[1])
y = np.empty(A.shape[0])

p = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731 (the README's three lines)
lib.loom_spmv(A.shape[0], A.shape[1], p(A.indptr), p(A.indices), p(A.data), p(x), p(y))

error = np.max(np.abs(y - A @ x))
print(f"loom SpMV on scipy's arrays: {A.shape[0]}x{A.shape[1]}, {A.nnz} entries, "
      f"max |loom - scipy| = {error:.3g}")
sys.exit(0 if error <= 1e-12 * max(1.0, np.max(np.abs(y))) else 1)
