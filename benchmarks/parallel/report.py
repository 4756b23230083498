#!/usr/bin/env python3
# Turns bench.parallel's JSON (with repetitions) into the tables of results.md: per kernel, the
# median wall time at 1 and 2 threads, the spread over repetitions (min-max), the CPU share the
# threads got (process CPU time / (wall x threads)), the 1 -> 2 thread speedup, and, where the
# bytes that must move are known, GB/s as a fraction of the STREAM triad at the same thread count.
# usage: report.py runtime_parallel.json
# SPDX-License-Identifier: BSL-1.0
import json
import re
import statistics
import sys
from collections import defaultdict

data = json.load(open(sys.argv[1]))
runs = defaultdict(list)
for b in data["benchmarks"]:
    if b.get("run_type") != "iteration":
        continue
    name = re.sub(r"/min_time:[^/]*|/process_time|/real_time|/repeats:\d+", "", b["run_name"])
    runs[name].append(b)

def stats(name):
    rs = runs[name]
    wall = [r["real_time"] for r in rs]
    cpu = [r["cpu_time"] for r in rs]
    t = rs[0].get("loom_threads", 1)
    share = statistics.median([c / (w * t) for c, w in zip(cpu, wall)])
    out = {"median": statistics.median(wall), "min": min(wall), "max": max(wall), "share": share,
           "cpu": statistics.median(cpu), "threads": t, "n": len(rs)}
    if "GBps" in rs[0]:
        gbps = [r["GBps"] for r in rs]
        out["gbps_median"] = statistics.median(gbps)
        out["gbps_best"] = max(gbps)
    return out

ctx = data.get("context", {})
print(f"Run: {ctx.get('date', '?')}, {ctx.get('num_cpus', '?')} CPUs, load average "
      f"{ctx.get('load_avg', '?')}, {len(next(iter(runs.values())))} repetitions per benchmark.\n")
print("| kernel / input | 1 thread: wall ms, median (min-max) | CPU share | 2 threads: wall ms, median (min-max) | CPU share | wall speedup 1→2 | CPU ms 1 → 2 threads | CPU-time speedup |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
kernels = sorted({n.rsplit("/", 1)[0] for n in runs})
for k in kernels:
    one, two = f"{k}/threads:1", f"{k}/threads:2"
    if one not in runs or two not in runs:
        continue
    a, b = stats(one), stats(two)
    print(f"| {k.removeprefix('BM_')} | {a['median']:.1f} ({a['min']:.1f}-{a['max']:.1f}) | {a['share']:.0%} "
          f"| {b['median']:.1f} ({b['min']:.1f}-{b['max']:.1f}) | {b['share']:.0%} | {a['median'] / b['median']:.2f}× "
          f"| {a['cpu']:.1f} → {b['cpu']:.1f} | {2 * a['cpu'] / b['cpu']:.2f}× |")
hand = [n for n in runs if n.endswith("hand_serial")]
for h in hand:
    s = stats(h)
    print(f"| {h.removeprefix('BM_')} | {s['median']:.1f} ({s['min']:.1f}-{s['max']:.1f}) | {s['share']:.0%} | | | | {s['cpu']:.1f} | |")

def cpu_rate(name):
    # bytes over the time the threads actually ran (process CPU time / threads): the rate the
    # kernel reaches while it holds its cores, the fair comparison on a shared machine
    s, rs = stats(name), runs[name]
    return rs[0]["bytes"] / (s["cpu"] * 1e-3 / s["threads"]) * 1e-9

triad = {t: stats(f"BM_triad/3x20M_doubles/threads:{t}") for t in (1, 2)
         if f"BM_triad/3x20M_doubles/threads:{t}" in runs}
print("\n| kernel | threads | bytes that must move (MB) | GB/s median (best) | triad GB/s median (best) | fraction of triad, median (best) | GB/s per CPU-second × threads | triad, same | fraction |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in sorted(runs):
    rs = runs[n]
    if "GBps" not in rs[0] or n.startswith("BM_triad"):
        continue
    s = stats(n)
    t = s["threads"]
    tr = triad.get(t)
    if not tr:
        continue
    mb = rs[0]["bytes"] / 1e6
    print(f"| {n.removeprefix('BM_')} | {t} | {mb:.0f} | {s['gbps_median']:.2f} ({s['gbps_best']:.2f}) "
          f"| {tr['gbps_median']:.2f} ({tr['gbps_best']:.2f}) | {s['gbps_median'] / tr['gbps_median']:.0%} "
          f"({s['gbps_best'] / tr['gbps_best']:.0%}) | {cpu_rate(n):.2f} | {cpu_rate(f'BM_triad/3x20M_doubles/threads:{int(t)}'):.2f} "
          f"| {cpu_rate(n) / cpu_rate(f'BM_triad/3x20M_doubles/threads:{int(t)}'):.0%} |")
