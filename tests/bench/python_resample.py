#!/usr/bin/env python3
"""robocache.resample from Python on torch CUDA tensors, against the raw C
call and against plain PyTorch, in one run (docs/performance.md).

Workload: B=64 trajectories, S=4096 source samples, T=1024 targets, D=32
float32 channels, int64 ns times, linear.  Fresh random sets (never zeros)
rotated over more than 4x the L2, warm-up, medians of N runs.

  host issue    host time to issue one call, GPU idle (perf_counter over
                groups of 20 calls, synchronised between groups), median:
                robocache.resample vs the raw C function through ctypes
                with prebuilt arguments -> the Python overhead
  one call      perf_counter around call + torch.cuda.synchronize()
  GPU time      CUDA events around each call (the kernel)
  back to back  200 calls then one synchronize, per call
  torch         the same three for searchsorted + gather + lerp
                (tests/bench/torch_baseline.py)
  floor         bytes read + written at the device copy bandwidth
                (Tensor.copy_ of 1 GiB, same run)

  python3 python_resample.py [--runs N] [--json FILE]
Needs the build's python/ on PYTHONPATH and torch with CUDA.
"""
import argparse
import ctypes
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_baseline as tb  # noqa: E402
import robocache  # noqa: E402
from robocache import _lib  # noqa: E402

B, S, T, D = 64, 4096, 1024, 32
DEV = torch.device("cuda", 0)


def stats(us):
    us = np.asarray(us)
    return {"median_us": float(np.median(us)),
            "p10_us": float(np.percentile(us, 10)),
            "p90_us": float(np.percentile(us, 90))}


def host_issue(fn, n_sets, runs, group=20):
    """Host microseconds to issue one call with the GPU idle."""
    per_call = []
    for r in range(runs):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(group):
            fn((r * group + i) % n_sets)
        per_call.append((time.perf_counter() - t0) * 1e6 / group)
    torch.cuda.synchronize()
    return stats(per_call)


def one_call(fn, n_sets, runs):
    times = []
    for r in range(runs):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn(r % n_sets)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e6)
    return stats(times)


def back_to_back(fn, n_sets, calls=200, repeats=10):
    per_call = []
    for r in range(repeats):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(calls):
            fn(i % n_sets)
        torch.cuda.synchronize()
        per_call.append((time.perf_counter() - t0) * 1e6 / calls)
    return stats(per_call)


def raw_call(sets):
    """rc_resample_cuda through ctypes with everything prebuilt: the C call
    as an application in C would make it (plus ctypes' own cost)."""
    p = _lib.ResampleParams(batch=B, n_source=S, n_target=T, channels=D,
                            type=_lib.TYPE["float32"], method=0, edge=0)
    out = torch.empty((B, T, D), device=DEV)
    stream = torch.cuda.current_stream().cuda_stream
    fn = _lib.kernels.rc_resample_cuda
    pp = ctypes.byref(p)
    ptrs = [(st.data_ptr(), sv.data_ptr(), tt.data_ptr()) for st, sv, tt in
            sets]
    optr = out.data_ptr()

    def call(i):
        a, b, c = ptrs[i]
        fn(pp, a, b, c, optr, stream)
    return call, out


def copy_bandwidth():
    """Tensor.copy_ of 1 GiB device to device, median of 30 (the floor's
    bandwidth, measured in the same run)."""
    src = torch.full((1 << 30,), 0xA5, dtype=torch.uint8, device=DEV)
    dst = torch.empty_like(src)
    return tb.time_runs(lambda s: dst.copy_(src), 1, 30)


def bench_arguments():
    """--runs, --json and --seed, as the Python benchmarks take them."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--json")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    return ap.parse_args()


def main():
    args = bench_arguments()
    generator = torch.Generator(device=DEV)
    generator.manual_seed(args.seed)
    gen = tb.Bench(args.runs, generator)
    set_bytes = B * S * (8 + 4 * D) + B * T * 8
    n_sets = tb.sets_for(set_bytes)
    sets = [tb.make_resample_set(gen, B, S, T, D, torch.float32)
            for _ in range(n_sets)]
    floor_bytes = set_bytes + B * T * D * 4

    def rc(i):
        st, sv, tt = sets[i]
        return robocache.resample(sv, st, tt)

    def th(i):
        st, sv, tt = sets[i]
        return tb.resample_linear(st, sv, tt)

    st, sv, tt = sets[0]
    got, want = rc(0), th(0)
    err = (got - want).abs().max().item()
    assert err < 1e-3, "robocache and torch disagree by %g" % err
    assert isinstance(got, torch.Tensor) and got.is_cuda

    raw, _keep = raw_call(sets)
    result = {"workload": "resample linear B=%d S=%d T=%d D=%d float32"
              % (B, S, T, D), "n_sets": n_sets, "seed": args.seed,
              "device": torch.cuda.get_device_name(DEV),
              "torch": torch.__version__, "max_abs_diff_vs_torch": err}
    copy = copy_bandwidth()
    gbps = 2 * (1 << 30) / (copy["median_us"] * 1e-6) / 1e9
    result["copy_gbps"] = gbps
    result["floor_us"] = floor_bytes / (gbps * 1e9) * 1e6
    for name, fn in (("robocache", rc), ("raw_c", raw), ("torch", th)):
        fn(0)
        r = {"gpu": tb.time_runs(fn, n_sets, args.runs),
             "host_issue": host_issue(fn, n_sets, max(args.runs // 4, 20)),
             "one_call": one_call(fn, n_sets, args.runs),
             "back_to_back": back_to_back(fn, n_sets)}
        result[name] = r
    rcr, raw_r, thr = result["robocache"], result["raw_c"], result["torch"]
    result["python_overhead_us"] = (rcr["host_issue"]["median_us"] -
                                    raw_r["host_issue"]["median_us"])
    result["speedup_gpu"] = (thr["gpu"]["median_us"] /
                             rcr["gpu"]["median_us"])
    result["speedup_back_to_back"] = (thr["back_to_back"]["median_us"] /
                                      rcr["back_to_back"]["median_us"])
    result["speedup_one_call"] = (thr["one_call"]["median_us"] /
                                  rcr["one_call"]["median_us"])
    print("%s on %s, torch %s, %d sets" % (result["workload"],
                                           result["device"], torch.__version__,
                                           n_sets))
    print("copy floor: %.0f GB/s -> %.1f us for %d bytes"
          % (gbps, result["floor_us"], floor_bytes))
    print("%-10s %12s %12s %12s %12s" % ("", "GPU us", "host issue",
                                         "one call", "back to back"))
    for name in ("robocache", "raw_c", "torch"):
        r = result[name]
        print("%-10s %12.1f %12.1f %12.1f %12.1f" % (
            name, r["gpu"]["median_us"], r["host_issue"]["median_us"],
            r["one_call"]["median_us"], r["back_to_back"]["median_us"]))
    print("python overhead per call: %.1f us (robocache.resample - raw C "
          "host issue)" % result["python_overhead_us"])
    print("speedup vs torch: GPU %.1fx, back to back %.1fx, one call %.1fx"
          % (result["speedup_gpu"], result["speedup_back_to_back"],
             result["speedup_one_call"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
