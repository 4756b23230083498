#!/usr/bin/env python3
"""Projects the distributed sparse kernels' measured scaling (mpi_sparse_scaling's JSON lines) to
16-256 ranks under an alpha-beta model.

Per kernel and per P ranks, the busiest rank's time is
    T(P) = compute(P) + ALPHA * messages(P) + BETA * bytes(P)
- compute(P): the largest per-rank compute time measured at the most ranks Pm, times Pm / P for
  strong scaling (a fixed problem shared by more ranks, Pm's imbalance kept), unchanged for weak
  scaling (each rank's share stays the same);
- bytes(P), messages(P): what the busiest rank sends under the strategy that ran, from its
  formula (the same payload counting as transport::sent(); the table of measured runs shows the
  formula next to the counters), with the sizes of P ranks (proportional to P for weak scaling).
Usage: project_scaling.py results.jsonl [--alpha S] [--beta S_PER_BYTE]
"""
import argparse
import json
import sys

ALPHA = 2e-6  # s per message: a cluster interconnect's latency
BETA = 1e-10  # s per byte: 10 GB/s per rank
PROJECTED = [16, 32, 64, 128, 256]


def comm(kernel, p, ranks):
    """(bytes, messages) of the busiest rank at `ranks` for the sizes in p (one JSON record's)."""
    if ranks == 1:
        return 0.0, 0.0
    peers = ranks - 1
    m, n, k = p["m"], p["n"], p["k"]
    # matrices go in whole tile rows: rank r gets tile rows [B r / P, B (r + 1) / P); past one
    # tile row per rank the projection assumes tiles cut finer (shares of m / P rows)
    tile = p.get("tile", 1)
    tile_rows = -(-m // tile)
    if tile_rows >= ranks:
        share = [min(tile_rows * (r + 1) // ranks * tile, m) - min(tile_rows * r // ranks * tile, m)
                 for r in (0, ranks - 1)]
        largest, first = max(share[0], -(-tile_rows // ranks) * tile), share[0]
        largest = min(largest, m)
    else:
        largest, first = -(-m // ranks), m // ranks
    if kernel in ("spmv", "spmm", "mttkrp"):
        # row blocks (slices of i): the rank's rows of the result to every other rank
        return p.get("iterations", 1) * largest * k * 8 * peers, p.get("iterations", 1) * peers
    if kernel == "sddmm":
        # row blocks with U and V on rank 0: rank 0 sends each rank its rows of U and all of V
        return ((m - first) + n * peers) * k * 8, peers
    if kernel == "spgemm":
        # B broadcast: each rank sends its share of B's tiles to every other rank
        return p["b_bytes"] * largest / m * peers, peers
    raise ValueError(kernel)


def scaled(p, factor):
    """The sizes of a weak-scaling job `factor` times larger (rows, and entries, times factor)."""
    q = dict(p)
    for key in ("m", "nnz", "b_bytes"):
        if key in q:
            q[key] = q[key] * factor
    if "n" in q and q.get("n") == p.get("m"):  # square matrices grow in both dimensions
        q["n"] = q["m"]
    return q


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", type=argparse.FileType(), default=sys.stdin)
    ap.add_argument("--alpha", type=float, default=ALPHA)
    ap.add_argument("--beta", type=float, default=BETA)
    args = ap.parse_args()
    runs = [json.loads(line) for line in args.results if line.startswith("{")]
    by = {}
    for r in runs:
        by.setdefault((r["kernel"], r["scaling"]), []).append(r)

    print("### Measured (per rank: the largest compute time, bytes and messages)\n")
    print("| kernel | scaling | ranks | distributed call ms | compute ms (max rank) | bytes (max rank)"
          " | formula bytes | messages (max rank) | strategy run | model's pick |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    for (kernel, scaling), rs in sorted(by.items()):
        for r in sorted(rs, key=lambda r: r["ranks"]):
            pr = r["per_rank"]
            fb, _ = comm(kernel, r, r["ranks"])
            print(f"| {kernel} | {scaling} | {r['ranks']} | {r['total_ms']:.1f} | "
                  f"{max(x['compute_ms'] for x in pr):.1f} | {max(x['bytes'] for x in pr):.0f} | "
                  f"{fb:.0f} | {max(x['messages'] for x in pr):.0f} | {r['strategy']} | "
                  f"{r['model_pick']} |")

    print("\n### Bytes sent against the cost model's estimate (all ranks, the strategy run; SpMV:"
          " its estimate per product times the products of a call)\n")
    print("| kernel | scaling | ranks | bytes sent | model's estimate | sent / estimate |")
    print("|---|---|---:|---:|---:|---:|")
    for (kernel, scaling), rs in sorted(by.items()):
        for r in sorted(rs, key=lambda r: r["ranks"]):
            if "model_bytes" not in r or r["ranks"] == 1:
                continue
            sent = sum(x["bytes"] for x in r["per_rank"])
            est = r["model_bytes"] * r.get("iterations", 1)  # the estimate is per product
            ratio = f"{sent / est:.3f}" if est > 0 else "-"
            print(f"| {kernel} | {scaling} | {r['ranks']} | {sent:.0f} | {est:.0f} | {ratio} |")

    print(f"\n### Projected (alpha = {args.alpha:g} s per message, beta = {args.beta:g} s per byte)\n")
    print("Each cell: the busiest rank's time in ms (its communication in ms), and the efficiency:"
          " T(1) / (P T(P)) for strong scaling, T(1) / T(P) for weak.\n")
    print("| kernel | scaling | " + " | ".join(f"{p} ranks" for p in PROJECTED) + " |")
    print("|---|---|" + "---:|" * len(PROJECTED))
    for (kernel, scaling), rs in sorted(by.items()):
        rs = sorted(rs, key=lambda r: r["ranks"])
        one, last = rs[0], rs[-1]
        pm = last["ranks"]
        c_max = max(x["compute_ms"] for x in last["per_rank"])
        t1 = max(x["compute_ms"] for x in one["per_rank"])
        cells = []
        for ranks in PROJECTED:
            if scaling == "strong":
                compute, sizes = c_max * pm / ranks, one
            else:
                compute, sizes = c_max, scaled(one, ranks // one["ranks"])
            b, msgs = comm(kernel, sizes, ranks)
            comm_ms = (args.alpha * msgs + args.beta * b) * 1e3
            total = compute + comm_ms
            eff = t1 / (ranks * total) if scaling == "strong" else t1 / total
            cells.append(f"{total:.3g} ({comm_ms:.3g}), {eff:.2f}")
        print(f"| {kernel} | {scaling} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
