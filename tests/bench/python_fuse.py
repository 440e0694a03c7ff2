#!/usr/bin/env python3
"""robocache.fuse from Python on torch CUDA tensors against the raw C call,
in one run: what the Python function costs a call over the kernel
(docs/performance.md, "Python").

Workload: bench-kernels' fusion reference, 64 episodes of 500 ticks at 50
Hz, streams of 512 channels at 30 Hz, 14 at 100 Hz and 6 at 333 Hz,
float32, int64 ns, linear; 4 fresh sets rotated (never zeros), warm-up,
medians of N runs, the measures of python_voxelize.py.  The raw call is
rc_fuse_cuda through ctypes with its parameters and output prebuilt,
checked equal to the Python call's output first.

  python3 python_fuse.py [--runs N] [--json FILE]
Needs the build's python/ and tests/python on PYTHONPATH and torch with
CUDA.
"""
import ctypes
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_voxelize as pv  # noqa: E402
import robocache  # noqa: E402
from robocache import _lib  # noqa: E402
import references as ref  # noqa: E402

E, T = 64, 500
STREAMS = ((300, 512), (1000, 14), (3330, 6))   # samples, channels


def make_set(rng):
    ticks = np.cumsum(np.full((E, T), 20_000_000), axis=1).astype(np.int64)
    out = []
    for n, c in STREAMS:
        times = ref.random_times(rng, E, n)
        times = times * (ticks[:, -1:] // times[:, -1:])
        out.append((torch.from_numpy(times).to(pv.DEV),
                    torch.from_numpy(rng.standard_normal(
                        (E, n, c)).astype(np.float32)).to(pv.DEV)))
    return out, torch.from_numpy(ticks).to(pv.DEV)


def raw_fuse(sets):
    """rc_fuse_cuda with the parameters (one per set) and the output
    prebuilt."""
    params = []
    for streams, _ in sets:
        p = _lib.FuseParams(episodes=E, n_ticks=T, n_streams=len(streams),
                            edge=_lib.EDGE["hold"])
        for i, (times, values) in enumerate(streams):
            p.streams[i] = _lib.FuseStream(
                n_samples=times.shape[1], channels=values.shape[2],
                type=_lib.TYPE["float32"], method=_lib.METHOD["linear"],
                times=times.data_ptr(), values=values.data_ptr())
        params.append(p)
    out = torch.empty((E, T, sum(c for _, c in STREAMS)), device=pv.DEV)
    stream = torch.cuda.current_stream().cuda_stream
    refs = [ctypes.byref(p) for p in params]
    ticks = [t.data_ptr() for _, t in sets]
    optr = out.data_ptr()
    fn = _lib.kernels.rc_fuse_cuda

    def run(i):
        fn(refs[i], ticks[i], optr, stream)
    run.keep = (params, out)
    return run, out


def main():
    args = pv.pr.bench_arguments()
    rng = np.random.default_rng(args.seed)
    sets = [make_set(rng) for _ in range(4)]

    def python_call(i):
        streams, ticks = sets[i]
        return robocache.fuse(streams, ticks)

    raw, raw_out = raw_fuse(sets)
    raw(0)
    assert torch.equal(python_call(0), raw_out), \
        "the Python call and the raw call differ"
    rows = {"python": pv.measure(python_call, len(sets), args.runs),
            "raw C": pv.measure(raw, len(sets), args.runs)}
    print("%-40s %28s %28s %28s" % ("fuse E64 T500, µs, median (p10-p90)",
                                    "host issue", "one call + sync",
                                    "back to back"))
    for who, r in rows.items():
        print("%-40s" % who + "".join(
            " %10.1f (%6.1f-%6.1f)" % (r[m]["median_us"], r[m]["p10_us"],
                                       r[m]["p90_us"])
            for m in ("host_issue", "one_call", "back_to_back")))
    print("%-40s %10.1f" % ("Python's cost over the C call (back to back)",
                            rows["python"]["back_to_back"]["median_us"] -
                            rows["raw C"]["back_to_back"]["median_us"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "device": torch.cuda.get_device_name(
                pv.DEV), "torch": torch.__version__, "rows": rows}, f,
                indent=1)


if __name__ == "__main__":
    main()
