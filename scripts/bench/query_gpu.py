#!/usr/bin/python3
"""Prints query.sh's GPU table from bench-gpu-search and bench-search outputs.

Usage: query_gpu.py GPU_QUERIES CPU_QUERIES THREADS GPU1.txt CPU1.txt [GPU2.txt CPU2.txt ...]
Each GPUn.txt is `bench-gpu-search` on one file, CPUn.txt `bench-search` on the same file.
The CPU answers fewer queries (its queries/s do not depend on how many: every pass over
the rows costs the same per query), the GPU all of them.
"""
import sys


def figures(path):
    return dict(line.rstrip("\n").split(" ", 1) for line in open(path) if " " in line)


gpu_queries, cpu_queries, threads = sys.argv[1:4]
pairs = list(zip(sys.argv[4::2], sys.argv[5::2]))
first = figures(pairs[0][0])
print(f"== GPU: {gpu_queries} queries, k=10, single words; {first['gpu']}")
print(f"{'vectors':<24} {'GPU q/s':>10} {'floor q/s':>10} {'GPU/floor':>10} {'setup s':>8} "
      f"{'CPU q/s':>9} {'CPU floor':>10} {'GPU/CPU':>8}")
for gpu_path, cpu_path in pairs:
    g, c = figures(gpu_path), figures(cpu_path)
    shape = g["shape"].split(", ")
    rows, dim = shape[0].split(" x ")[1].split()[0], shape[0].split(" x ")[2].split()[0]
    vectors = f"{int(rows):,} x {dim} {shape[1]}"
    gpu_qps = float(g["search_queries_per_second"])
    floor_qps = int(gpu_queries) / float(g["floor_seconds"])
    cpu_qps = float(c["search_queries_per_second"])
    cpu_floor_qps = int(cpu_queries) / float(c["sgemm_seconds"])
    print(f"{vectors:<24} {gpu_qps:>10.0f} {floor_qps:>10.0f} {gpu_qps / floor_qps:>9.2f}x {float(g['setup_seconds']):>8.2f} "
          f"{cpu_qps:>9.1f} {cpu_floor_qps:>10.1f} {gpu_qps / cpu_qps:>7.0f}x")
print(f"GPU q/s: the GPU search (GEMMs, scoring and top-10 on the device); floor: its GEMMs alone (cuBLAS, "
      f"{first['floor_tflops']} TFLOP/s effective on the first file); setup: CUDA context and copying the rows (once "
      f"per process); CPU: search() with {threads} threads on {cpu_queries} of the queries, and its floor, one SGEMM "
      f"call of the same product")
