#!/usr/bin/env python3
# Binary size per kernel: benchmarks/CMakeLists.txt links each of loom's peer
# kernels (benchmarks/peers/kernels/<name>.cpp, -O2) alone into binsize/<name>, and binsize/none
# links none; this script records each executable's size as built, stripped, and its text
# section, and what each kernel adds over `none`, into benchmarks/results/binary_size.json.
#
# usage: python3 tools/binary_size.py --build build/bench [--out benchmarks/results/binary_size.json]
# SPDX-License-Identifier: BSL-1.0
import argparse
import json
import pathlib
import shutil
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def sizes(exe):
    with tempfile.TemporaryDirectory() as tmp:
        stripped = pathlib.Path(tmp) / "s"
        subprocess.run(["strip", "-o", str(stripped), str(exe)], check=True)
        stripped_bytes = stripped.stat().st_size
    text = None
    if shutil.which("size"):
        out = subprocess.run(["size", "-A", str(exe)], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if parts and parts[0] == ".text":
                text = int(parts[1])
    return {"bytes": exe.stat().st_size, "stripped_bytes": stripped_bytes, "text_bytes": text}


def main():
    ap = argparse.ArgumentParser(description="binary size per kernel")
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "binary_size.json"))
    args = ap.parse_args()
    folder = pathlib.Path(args.build) / "benchmarks" / "binsize"
    exes = {p.name: p for p in sorted(folder.iterdir()) if p.is_file()} if folder.exists() else {}
    if "none" not in exes:
        raise SystemExit(f"binary_size.py: {folder}/none not built (cmake --build ... --target bench.all)")
    base = sizes(exes["none"])
    kernels = {}
    for name, exe in exes.items():
        if name == "none":
            continue
        s = sizes(exe)
        s["added_stripped_bytes"] = s["stripped_bytes"] - base["stripped_bytes"]
        s["added_text_bytes"] = (s["text_bytes"] - base["text_bytes"]) if s["text_bytes"] is not None else None
        kernels[name] = s
    data = {"method": "one kernel TU linked alone with a small driver, -O2; added = size minus the "
                      "driver linked without a kernel", "baseline": base, "kernels": kernels}
    pathlib.Path(args.out).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: " + ", ".join(f"{k} +{v['added_stripped_bytes'] / 1024:.0f} KiB" for k, v in kernels.items()))


if __name__ == "__main__":
    main()
