#!/usr/bin/env python3
"""Turns bench.mapping's JSON (--benchmark_repetitions=N --benchmark_out=run.json) into the
markdown tables of results.md: per group, the median CPU time of each implementation, its ratio
to the group's reference, the process's CPU share (CPU / wall time: how much of a core the
benchmark got on the shared machine) and the spread ((max - min) / median of the CPU times).

usage: report.py run.json [more runs...] > results-tables.md
"""
import json
import statistics
import sys
from collections import OrderedDict

REFERENCE = {  # the implementation each group's ratios are taken against
    "mapping_csr_spmv": "builtin_csr",
    "mapping_lower_mv": "full_dense",
    "mapping_symmetric_mv": "full_dense",
    "mapping_band_mv": "csr",
    "mapping_hashed_spmv": "builtin_csr",
    "mapping_hashed_probe": "builtin_csr",
}


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            data = json.load(f)
        ctx = data["context"]
        print(f"Run `{path.split('/')[-1]}`: {ctx['date']}, {ctx['num_cpus']} CPUs, "
              f"load average {', '.join(f'{x:.1f}' for x in ctx.get('load_avg', []))}\n")
        rows = OrderedDict()
        for b in data["benchmarks"]:
            if b.get("run_type") != "iteration":
                continue
            name = b["run_name"]  # BM_<group>/<input>/<impl>
            group, inp, impl = name[3:].split("/")
            rows.setdefault((group, inp), OrderedDict()).setdefault(impl, []).append(
                (b["cpu_time"], b["real_time"], b.get("label", "")))
        for (group, inp), impls in rows.items():
            print(f"### {group} / {inp}\n")
            print("| implementation | CPU ms (median) | ratio to " + REFERENCE.get(group, "?") +
                  " | CPU share | spread | what |")
            print("|---|---|---|---|---|---|")
            med = {k: statistics.median(c for c, _, _ in v) for k, v in impls.items()}
            ref = med.get(REFERENCE.get(group, ""), None)
            for impl, v in impls.items():
                cpu = [c for c, _, _ in v]
                share = statistics.median(c / r for c, r, _ in v if r > 0)
                spread = (max(cpu) - min(cpu)) / med[impl] if med[impl] > 0 else 0
                ratio = f"{med[impl] / ref:.2f}x" if ref else "-"
                print(f"| {impl} | {med[impl]:.4g} | {ratio} | {share:.0%} | {spread:.0%} | {v[0][2]} |")
            print()


if __name__ == "__main__":
    main()
