#!/usr/bin/env python3
# Writes BENCHMARKS.md from the JSON files of a benchmark run (DESIGN.md §10, STYLE.md H19).
# SPDX-License-Identifier: BSL-1.0
#
# usage:
#   python3 tools/bench_report.py meta --out benchmarks/results/meta.json [--cxx /usr/bin/c++]
#       records the machine, the compilers and the commit (run before the benchmarks)
#   python3 tools/bench_report.py report [--results benchmarks/results] [--out BENCHMARKS.md]
#       reads meta.json, runtime_*.json (Google Benchmark) and compile_time.json (measure.py),
#       writes the report and benchmarks/results/compile_time.png (when matplotlib is there)
#
# Every number in the report comes from those files; this script holds only words and the
# targets' thresholds.
import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The targets stated by the project (issue item 9).
RUNTIME_TARGET = 1.05           # loom / hand-written, median time, on these kernels:
RUNTIME_TARGET_KERNELS = ("spmv", "mttkrp")
COMPILE_TARGET_SECONDS = 5.0    # a kernel TU with GCC -O2 ...
COMPILE_TARGET_MB = 1024.0      # ... and its peak memory
COMPILE_TARGET_UNITS = ("compile.kernel.spmv", "compile.kernel.spgemm")

KERNELS = {  # name in BM_<kernel>/...: (title, expression, what "hand" and "eigen" are)
    "spmv": ("SpMV", "y(i) = sum(j, A(i,j) * x(j)); A csr, x and y dense_vector",
             "hand: one CSR row loop accumulating in a register; "
             "eigen: row-major SparseMatrix * VectorXd"),
    "spmspv": ("SpMSpV", "y(i) = sum(j, A(i,j) * x(j)); A csc, x sparse_vector, y dense_vector",
               "hand: zero y, scatter the columns x selects; "
               "eigen: column-major SparseMatrix * SparseVector into a VectorXd"),
    "dot": ("Sparse inner product", "s = sum(i, x(i) * z(i)); x, z sparse_vector",
            "hand: two-pointer merge; eigen: SparseVector::dot"),
    "frobenius": ("Sparse matrix inner product",
                  "s = sum(i, j, A(i,j) * B(i,j)); A, B csr (B = A transposed)",
                  "hand: a two-pointer merge per row; eigen: A.cwiseProduct(B).sum()"),
    "add": ("Sparse add", "C(i,j) = A(i,j) + B(i,j); csr + csr -> csr (B = A transposed for "
            "the real matrices)",
            "hand: a merge per row into fresh reserved arrays; eigen: row-major A + B"),
    "spgemm": ("SpGEMM", "C(i,j) = sum(k, A(i,k) * B(k,j)); csr x csr -> csr (A * A for the "
               "real matrices)",
               "hand: Gustavson with a dense accumulator and a per-row sort of the touched "
               "columns; eigen: row-major A * B"),
    "mttkrp": ("MTTKRP", "M(i,r) = sum(j, k, T(i,j,k) * B(j,r) * C(k,r)); T csf<3>, B, C, M "
               "dense_matrix",
               "hand: the CSF loop nest i, j, k with a unit-stride loop over r; Eigen has no "
               "MTTKRP"),
}
KERNEL_ORDER = ["spmv", "spmspv", "dot", "frobenius", "add", "spgemm", "mttkrp"]

# Suites that compare plans rather than loom with a hand-written kernel (issue 5): the
# implementations in column order and the baseline each ratio divides by.
PLAN_SUITES = {
    "chain": ("Matrix chain A·B·C·D (loom::matrix_chain)",
              "chosen: the elimination order picked from statistics (planning included); "
              "left_to_right: the fixed order (((A·B)·C)·D)",
              ["chosen", "left_to_right"], "left_to_right"),
    "four_walks": ("Closed 4-walks trace(A⁴) (loom::decompose)",
                   "decompose: the plan chosen from statistics; fused: one loop nest over i, j, k, l; "
                   "hand: per row, 2-path counts in a dense accumulator, summed squared",
                   ["hand", "decompose", "fused"], "hand"),
    "triangles": ("Ordered triangles (loom::decompose)",
                  "decompose: the plan chosen from statistics (the fused kernel); "
                  "hand: a merge of the two rows of every edge",
                  ["hand", "decompose"], "hand"),
    "optimizer": ("Runtime optimizer overhead",
                  "kernel: C(i,j) = A(i,j) + B(j,i) including its plan choice; first_choice: "
                  "statistics gathered and every candidate costed; cached_choice: the per-call "
                  "cost once the plan is cached",
                  ["kernel", "first_choice", "cached_choice"], "kernel"),
}
IMPLS = ["hand", "loom", "eigen"]


# meta ---------------------------------------------------------------------------------------------
def run_text(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return ""


def cpu_model():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def mem_total_gib():
    try:
        m = re.search(r"MemTotal:\s+(\d+) kB", pathlib.Path("/proc/meminfo").read_text())
        return round(int(m.group(1)) / 1024 / 1024, 1)
    except (OSError, AttributeError):
        return None


def caches():
    out = run_text(["lscpu"])
    return [re.sub(r"\s+", " ", line.strip()) for line in out.splitlines()
            if re.match(r"\s*L\d\w* cache", line)]


def cmd_meta(args):
    compilers = {}
    for cxx in [args.cxx, "g++", "clang++"]:
        if cxx and cxx not in compilers:
            first = run_text([cxx, "--version"]).splitlines()
            if first:
                compilers[cxx] = first[0]
    dirty = run_text(["git", "status", "--porcelain", "--untracked-files=no"])
    meta = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "host": platform.node(),
        "kernel": platform.release(),
        "nproc": os.cpu_count(),
        "cpu_model": cpu_model(),
        "mem_total_gib": mem_total_gib(),
        "caches": caches(),
        "runtime_compiler": args.cxx,
        "compilers": compilers,
        "runtime_flags": args.flags,
        "commit": run_text(["git", "rev-parse", "--short=12", "HEAD"]),
        "work_tree_dirty": bool(dirty),
        "load_avg": [float(x) for x in pathlib.Path("/proc/loadavg").read_text().split()[:3]],
    }
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


# runtime ------------------------------------------------------------------------------------------
UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def load_runtime(results):
    """{kernel: {input: {impl: row}}} from every runtime_*.json, plus their contexts."""
    table, contexts, order = {}, [], {}
    for path in sorted(results.glob("runtime_*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            print(f"bench_report.py: skipping {path.name} (empty or not JSON)", file=sys.stderr)
            continue
        contexts.append((path.name, data.get("context", {})))
        runs = {}
        for b in data.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
                continue
            runs.setdefault(b.get("run_name", b["name"]), []).append(b)
        for name, reps in runs.items():
            parts = name.split("/")
            if len(parts) != 3 or not parts[0].startswith("BM_"):
                continue
            kernel, inp, impl = parts[0][3:], parts[1], parts[2]
            scale = UNIT_SECONDS[reps[0].get("time_unit", "ns")]
            cpu = [r["cpu_time"] * scale for r in reps]
            wall = [r["real_time"] * scale for r in reps]
            table.setdefault(kernel, {}).setdefault(inp, {})
            order.setdefault((kernel, inp), reps[0].get("family_index", len(order)))
            table[kernel][inp][impl] = {
                "cpu": statistics.median(cpu), "wall": statistics.median(wall),
                "spread": (max(cpu) - min(cpu)) / statistics.median(cpu) if cpu else 0.0,
                "share": statistics.median(c / w for c, w in zip(cpu, wall) if w > 0),
                "reps": len(reps), "nnz": reps[0].get("nnz"), "label": reps[0].get("label", ""),
                "iterations": [r["iterations"] for r in reps],
            }
    # inputs in registration order (random interleaving shuffles the JSON)
    for kernel in table:
        table[kernel] = dict(sorted(table[kernel].items(), key=lambda kv: order[(kernel, kv[0])]))
    return table, contexts


def fmt_time(seconds):
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def fmt_count(n):
    if n is None:
        return ""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.3g}{suffix}"
    return f"{n:.0f}"


def ratio(row, impl):
    if impl in row and "hand" in row and row["hand"]["cpu"] > 0:
        return row[impl]["cpu"] / row["hand"]["cpu"]
    return None


def fmt_ratio(r):
    return "—" if r is None else f"{r:.2f}×"


def plan_section(table, out):
    """Tables of the plan-comparison suites: times and ratios to each suite's baseline."""
    for kernel, (title, impls_text, impls, base) in PLAN_SUITES.items():
        if kernel not in table:
            continue
        out.append(f"### {title}\n")
        out.append(f"{impls_text}.\n")
        others = [i for i in impls if i != base]
        head = ["input"] + impls + [f"{i} / {base}" for i in others] + ["spread"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
        for inp, row in table[kernel].items():
            cells = [f"`{inp}`"] + [fmt_time(row[i]["cpu"]) if i in row else "—" for i in impls]
            for i in others:
                r = row[i]["cpu"] / row[base]["cpu"] if i in row and base in row and row[base]["cpu"] > 0 else None
                cells.append(fmt_ratio(r) if r is None or r >= 0.1 else f"{r:.2g}×")
            cells.append(f"{max(v['spread'] for v in row.values()) * 100:.0f}%")
            out.append("| " + " | ".join(cells) + " |")
        out.append("")


def runtime_section(table, out):
    ratios = []  # (kernel, input, loom/hand, eigen/hand, spread)
    for kernel in KERNEL_ORDER + sorted(set(table) - set(KERNEL_ORDER) - set(PLAN_SUITES)):
        if kernel not in table:
            continue
        title, expr, impls = KERNELS.get(kernel, (kernel, "", ""))
        out.append(f"### {title}\n")
        out.append(f"`{expr}`  \n{impls}.\n")
        has_eigen = any("eigen" in row for row in table[kernel].values())
        head = ["input", "entries", "hand", "loom"] + (["Eigen"] if has_eigen else [])
        head += ["loom / hand"] + (["Eigen / hand"] if has_eigen else [])
        head += ["spread", "CPU share"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
        for inp, row in table[kernel].items():
            any_row = next(iter(row.values()))
            cells = [f"`{inp}`", fmt_count(any_row["nnz"])]
            for impl in ["hand", "loom"] + (["eigen"] if has_eigen else []):
                cells.append(fmt_time(row[impl]["cpu"]) if impl in row else "—")
            r_loom, r_eigen = ratio(row, "loom"), ratio(row, "eigen")
            cells.append(f"**{fmt_ratio(r_loom)}**")
            if has_eigen:
                cells.append(fmt_ratio(r_eigen))
            cells.append(f"{max(v['spread'] for v in row.values()) * 100:.0f}%")
            cells.append(f"{min(v['share'] for v in row.values()) * 100:.0f}%")
            out.append("| " + " | ".join(cells) + " |")
            ratios.append((kernel, inp, r_loom, r_eigen,
                           max(row[i]["spread"] for i in ("hand", "loom") if i in row)))
        out.append("")
    return ratios


# compile time -------------------------------------------------------------------------------------
def load_compile(results):
    path = results / "compile_time.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    for u in data["units"]:
        u["wall_s"] = min(r["wall_s"] for r in u["runs"])
        u["peak_mb"] = max(r["peak_rss_kb"] for r in u["runs"]) / 1024
        u["object_kb"] = u["runs"][-1]["object_bytes"] / 1024
    return data


def compile_section(data, plot_rel, out):
    compilers = list(data["context"]["compilers"])
    by = {(u["name"], u["compiler"]): u for u in data["units"]}
    names = list(dict.fromkeys(u["name"] for u in data["units"]))
    head = ["translation unit", "operands"]
    for c in compilers:
        head += [f"{c} time", f"{c} peak", f"{c} object"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---", "---:"] + ["---:"] * (3 * len(compilers))) + "|")
    for name in names:
        first = next(by[(name, c)] for c in compilers if (name, c) in by)
        operands = str(first["operands"]) if first["family"] in ("product", "sum") else "—"
        if first["formats"]:
            operands += " (" + ", ".join(first["formats"]) + ")"
        cells = [f"`{name}`", operands]
        for c in compilers:
            u = by.get((name, c))
            cells += ([f"{u['wall_s']:.2f} s", f"{u['peak_mb']:.0f} MB", f"{u['object_kb']:.0f} KB"]
                      if u else ["—"] * 3)
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    if plot_rel:
        out.append(f"![compile time and peak memory against the number of operands]({plot_rel})\n")


def make_plot(data, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench_report.py: matplotlib is missing, no plot (apt-get install python3-matplotlib)",
              file=sys.stderr)
        return False
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"product": "-o", "sum": "--s"}
    for compiler in data["context"]["compilers"]:
        for family in ("product", "sum"):
            units = sorted((u for u in data["units"]
                            if u["family"] == family and u["compiler"] == compiler),
                           key=lambda u: u["operands"])
            if not units:
                continue
            xs = [u["operands"] for u in units]
            label = f"{compiler}, {family}"
            ax_t.plot(xs, [u["wall_s"] for u in units], styles[family], label=label)
            ax_m.plot(xs, [u["peak_mb"] for u in units], styles[family], label=label)
        base = [u for u in data["units"] if u["family"] == "baseline" and u["compiler"] == compiler]
        if base:
            ax_t.axhline(base[0]["wall_s"], linestyle=":", linewidth=1, color="grey")
    ax_t.axhline(COMPILE_TARGET_SECONDS, color="red", linewidth=1, label="target (GCC)")
    ax_t.set_yscale("log")
    first_csc = min((u["operands"] for u in data["units"] if "csc" in u.get("formats", [])),
                    default=None)
    if first_csc is not None:  # from here on the planner must transpose an operand
        for ax in (ax_t, ax_m):
            ax.axvline(first_csc - 0.5, color="grey", linewidth=0.8, linestyle="--")
        ax_t.annotate("a csc operand joins →", xy=(first_csc - 0.45, 0.97),
                      xycoords=("data", "axes fraction"), fontsize=8, va="top")
    ax_t.set_xlabel("operands in the kernel")
    ax_t.set_ylabel("compile time, s (min of runs, log scale)")
    ax_t.set_title("compile time (-O2); dotted: #include only")
    ax_m.set_xlabel("operands in the kernel")
    ax_m.set_ylabel("peak compiler memory, MB")
    ax_m.set_title("peak memory")
    for ax in (ax_t, ax_m):
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return True


# report -------------------------------------------------------------------------------------------
def cmd_report(args):
    results = pathlib.Path(args.results)
    out_path = pathlib.Path(args.out)
    meta_path = results / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
    table, contexts = load_runtime(results)
    compile_data = load_compile(results)
    out = ["# loom benchmarks", "",
           "<!-- Generated by tools/bench_report.py from benchmarks/results/*.json; do not edit. "
           "Regenerate with `bash tools/run_benchmarks.sh`. -->", ""]

    # machine
    out.append("## Machine\n")
    if meta:
        out.append(f"- CPU: {meta.get('cpu_model')}, {meta.get('nproc')} logical cores "
                   f"(`nproc`), {meta.get('mem_total_gib')} GiB memory; "
                   + "; ".join(re.sub(r"\s+", " ", c) for c in meta.get("caches", [])))
        out.append(f"- kernel {meta.get('kernel')}; measured {meta.get('date')} at commit "
                   f"`{meta.get('commit')}`" + (" (work tree with uncommitted changes)"
                                                 if meta.get("work_tree_dirty") else ""))
        out.append(f"- runtime benchmarks built with `{meta.get('runtime_compiler')}` "
                   f"({meta.get('compilers', {}).get(meta.get('runtime_compiler'), '?')}), "
                   f"flags `{meta.get('runtime_flags')}`")
        for c, v in meta.get("compilers", {}).items():
            if c != meta.get("runtime_compiler"):
                out.append(f"- `{c}`: {v}")
    if contexts:
        ctx = contexts[0][1]
        out.append(f"- Google Benchmark (the library reports itself built as "
                   f"{ctx.get('library_build_type', '?')}: that is the distribution's build of the "
                   "library and does not affect the timed code, which is ours, built with -O2)")
        loads = ", ".join(f"{name.removeprefix('runtime_').removesuffix('.json')}: "
                          + "/".join(f"{x:.1f}" for x in c.get("load_avg", []))
                          for name, c in contexts)
        out.append(f"- load average (1/5/15 min) when each benchmark binary started: {loads}")
    out.append("")

    # method
    reps = sorted({v["reps"] for k in table.values() for i in k.values() for v in i.values()})
    out.append("## Method\n")
    out.append(
        f"- Each benchmark runs {'/'.join(map(str, reps)) or '?'} repetitions "
        "(`--benchmark_repetitions`); a repetition runs the kernel as many times as Google "
        "Benchmark needs for a stable time, and its time is the mean per call. The tables give "
        "the **median over repetitions of the CPU time per call**; ratios are loom (or Eigen) "
        "divided by the hand-written kernel on the same input, so below 1 means faster than "
        "the hand-written code.")
    out.append(
        "- The implementations of one input are registered next to each other (loom, hand, "
        "Eigen) and work on the same arrays; the repetitions of all benchmarks of a binary are "
        "run in random interleaved order (`--benchmark_enable_random_interleaving`), so a burst "
        "of load on the machine is spread over all implementations. The inputs are built and checked once, outside the timed loops: loom's result "
        "must equal the hand-written kernel's (same entries, values to 1e-12 relative, 1e-10 for MTTKRP; Eigen's "
        "to 1e-10), or the binary aborts.")
    out.append(
        "- Generated inputs use fixed seeds and are far larger than the caches; the real "
        "matrices (bcsstk13, cryg2500, pushpull, zenios, from `shared/data/matrices`) are small "
        "and run from cache, so they show per-call overheads more than memory traffic.")
    out.append(
        "- **Noise.** The machine is shared: other engineers compile on the same cores while "
        "the benchmarks run. *spread* is (max − min) / median of the CPU times over the "
        "repetitions (worst implementation of the row); *CPU share* is CPU time / wall time "
        "(lowest implementation of the row): below ~90% the process was waiting for a core, "
        "and memory-bound kernels then also share memory bandwidth and L3 with the "
        "compilers. Treat differences within the spread as noise. CPU time is used because "
        "it does not count the time the benchmark was descheduled.")
    out.append("")

    ratios = []
    runtime_out = []
    if table:
        ratios = runtime_section(table, runtime_out)
        plan_out = []
        plan_section(table, plan_out)
        if plan_out:
            runtime_out += ["## Runtime optimizer (issue 5)\n"] + plan_out

    # targets
    out.append("## Targets\n")
    out.append("| target | measured | met? |")
    out.append("|---|---|---|")
    for kernel in RUNTIME_TARGET_KERNELS:
        rows = [(inp, r, sp) for k, inp, r, _, sp in ratios if k == kernel and r is not None]
        if not rows:
            out.append(f"| loom ≤ {RUNTIME_TARGET:.2f}× hand-written on {KERNELS[kernel][0]} "
                       "| not measured | — |")
            continue
        for inp, r, sp in rows:
            if r <= RUNTIME_TARGET:
                met = "yes"
            elif r - 1 <= sp:
                met = f"**no**, but within the noise (spread {sp * 100:.0f}%)"
            else:
                met = "**no**"
            out.append(f"| loom ≤ {RUNTIME_TARGET:.2f}× hand-written, {KERNELS[kernel][0]} "
                       f"`{inp}` | {r:.2f}× | {met} |")
    if compile_data:
        gcc = next((c for c in compile_data["context"]["compilers"] if "g++" in c
                    and "clang" not in c), None)
        for name in COMPILE_TARGET_UNITS:
            u = next((u for u in compile_data["units"]
                      if u["name"] == name and u["compiler"] == gcc), None)
            if not u:
                continue
            met = "yes" if (u["wall_s"] < COMPILE_TARGET_SECONDS and
                            u["peak_mb"] < COMPILE_TARGET_MB) else "**no**"
            out.append(f"| `{name}` compiles with GCC -O2 in < {COMPILE_TARGET_SECONDS:.0f} s "
                       f"and < {COMPILE_TARGET_MB / 1024:.0f} GB | {u['wall_s']:.2f} s, "
                       f"{u['peak_mb']:.0f} MB | {met} |")
        worst = [u for u in compile_data["units"]
                 if u["compiler"] == gcc and u["family"] in ("product", "sum")]
        if worst:
            over = [u for u in worst if u["wall_s"] >= COMPILE_TARGET_SECONDS]
            out.append(f"| every generated kernel TU (1–{max(u['operands'] for u in worst)} "
                       f"operands) compiles with GCC -O2 in < {COMPILE_TARGET_SECONDS:.0f} s "
                       f"and < {COMPILE_TARGET_MB / 1024:.0f} GB | "
                       f"{len(worst) - len(over)} of {len(worst)} under the time target; "
                       f"slowest {max(u['wall_s'] for u in worst):.1f} s, largest "
                       f"{max(u['peak_mb'] for u in worst):.0f} MB | "
                       f"{'yes' if not over and all(u['peak_mb'] < COMPILE_TARGET_MB for u in worst) else '**no**'} |")
    out.append("")

    out.append("## Runtime\n")
    out.extend(runtime_out if runtime_out else ["No runtime results found.\n"])

    out.append("## Relations, tiles and MPI\n")
    out.append("These suites are standalone programs with their own result files (they compare "
               "with SQLite, DuckDB and Eigen, and run under mpirun): "
               "[benchmarks/relational/README.md](benchmarks/relational/README.md) (triangle query "
               "scaling, cyclic queries on the real graphs, TPC-H Q5 and Q9, filtered SpMV) and "
               "[benchmarks/tra/results.md](benchmarks/tra/results.md) (tile matmul against Eigen, "
               "1 and 2 ranks, the cost model's ranking of the distributed matmul strategies).\n")

    out.append("## Compile time\n")
    if compile_data:
        ctx = compile_data["context"]
        out.append(
            f"Each translation unit is compiled {ctx['repeat']} times per compiler with "
            f"`{ctx['flags']}` (a TU whose first compile takes more than {ctx.get('long_s', '?')} s "
            "is compiled once); *time* is the minimum wall time over the runs (noise only adds "
            "time), *peak* the largest maximum resident set size reported by GNU time, "
            "*object* the size of the `.o`. Sources: `benchmarks/compile_time/*.cpp.in`; "
            "`compile.baseline.include` is `#include <loom/loom.hpp>` alone, so the cost of a "
            "kernel is its time minus the baseline's. *product* TUs multiply N − 1 matrices in "
            "cycling formats (csr, dcsr, dense, csc) and a dense vector; *sum* TUs add the N − 1 "
            "matrices, then multiply by the vector.\n")
        out.append("Compilers: " + "; ".join(f"`{c}` {v}" for c, v in ctx["compilers"].items())
                   + f". Load average before/after: {ctx.get('load_avg_before')} / "
                   f"{ctx.get('load_avg_after')}.\n")
        plot = results / "compile_time.png"
        have_plot = make_plot(compile_data, plot)
        rel = os.path.relpath(plot, out_path.resolve().parent) if have_plot else None
        compile_section(compile_data, rel, out)
    else:
        out.append("No compile-time results found.\n")

    out_path.write_text("\n".join(out).rstrip() + "\n", encoding="utf-8")
    print(f"wrote {out_path}")


def main():
    ap = argparse.ArgumentParser(description="loom benchmark report")
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("meta", help="record the machine, compilers and commit")
    m.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "meta.json"))
    m.add_argument("--cxx", default="c++")
    m.add_argument("--flags", default="-O2")
    r = sub.add_parser("report", help="write BENCHMARKS.md")
    r.add_argument("--results", default=str(ROOT / "benchmarks" / "results"))
    r.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    args = ap.parse_args()
    {"meta": cmd_meta, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    main()
