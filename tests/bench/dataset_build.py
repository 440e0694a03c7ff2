#!/usr/bin/env python3
"""Recordings per minute and samples per second of the dataset builder
(robocache.dataset) against a plain Python loop doing the same work
(docs/dataset.md, "Speed").

Both turn the same MCAP recordings into WebDataset-style tar shards of
.npy arrays, per lidar sweep: its count grid (uint32, z, y, x), the joint
states (positions, velocities, efforts) resampled linearly at the
sweep's time + linspace(-0.1 s, 0.1 s, 21), and the camera frame nearest
the sweep.

  builder  robocache.dataset.build: a worker process per core (CPU) or
           GPU, and with one worker, each playing a recording through robocachemcapsrc (C
           reader, CDR decoding) ! robocachevoxelize, joints through
           robocache.resample, shards written with checksums
  plain    tests/bench/plain_mcap.py (the file parsed and CDR decoded in
           Python/NumPy, as the `mcap` packages do), voxel index
           arithmetic + numpy.bincount, numpy.interp per joint channel,
           the nearest frame, shards written with tarfile: in one
           process (the loop a user writes first) and in a
           multiprocessing.Pool of as many processes as the builder has
           workers

The recordings are made first (robocachemcapsink, uncompressed chunks,
which plain_mcap reads): the synthetic lidar at 10 Hz, joints at 100 Hz,
an RGB camera at 15 Hz, copied --recordings times.  The contenders run
in turn, --repeats times, on files already in the page cache (the
median is reported); each run writes its shards afresh and is timed from
a sync to a sync (the shards on disk: the builder fsyncs each shard, the
plain loop leaves it to the kernel); the first recording's samples of
the builder and the plain loop are compared.

  python3 tests/bench/dataset_build.py [--recordings 4] [--seconds 30]
      [--points 32768] [--repeats 3] [--jobs N] [--device auto|cpu|cuda]
      [--json OUT] [--keep DIR]
"""
import argparse
import bisect
import io
import json
import multiprocessing
import os
import shutil
import sys
import tarfile
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plain_mcap  # noqa: E402
import robocache  # noqa: E402
from robocache import dataset  # noqa: E402

TOPICS = {"lidar": "/velodyne_points", "joints": "/joint_states",
          "camera": "/camera/image_raw"}
GRID = {"voxel_size": [0.4, 0.4, 0.4], "origin": [-25.6, -25.6, -3.2],
        "dims": [128, 128, 16], "mode": "count"}
WINDOW, SAMPLES = (-0.1, 0.1), 21
CONFIG = {"topics": TOPICS, "grid": GRID,
          "joints": {"window": list(WINDOW), "samples": SAMPLES,
                     "method": "linear"}}


def make_recordings(folder, count, seconds, points):
    first = os.path.join(folder, "rec-00.mcap")
    robocache.run(
        "robocachemcapsink name=m location=%s compression=none "
        "sink_0::topic=%s sink_1::topic=%s sink_2::topic=%s "
        "robocachelidarsrc num-buffers=%d points-per-sweep=%d seed=1 ! "
        "m.sink_0 robocachejointsrc num-buffers=%d rate=100/1 ! m.sink_1 "
        "videotestsrc num-buffers=%d pattern=ball ! video/x-raw,format=RGB,"
        "width=160,height=120,framerate=15/1 ! m.sink_2" % (
            first, TOPICS["lidar"], TOPICS["joints"], TOPICS["camera"],
            10 * seconds, points, 100 * seconds, 15 * seconds),
        timeout=600)
    for i in range(1, count):
        shutil.copy(first, os.path.join(folder, "rec-%02d.mcap" % i))
    return sorted(os.path.join(folder, n) for n in os.listdir(folder))


# ---- the plain loop ------------------------------------------------------

def joint_state(data):
    """JointState -> (stamp, positions + velocities + efforts)."""
    c = plain_mcap._Cdr(data)
    stamp = plain_mcap._header(c)
    for _ in range(c.u32()):
        c.string()
    return stamp, np.concatenate([c.f64_seq(), c.f64_seq(), c.f64_seq()])


def voxelize(xyz):
    size = np.array(GRID["voxel_size"])
    origin = np.array(GRID["origin"])
    dims = np.array(GRID["dims"])
    ijk = np.floor((xyz.astype(np.float64) - origin) / size)
    inside = ((ijk >= 0) & (ijk < dims)).all(axis=1)
    ijk = ijk[inside].astype(np.int64)
    flat = (ijk[:, 2] * dims[1] + ijk[:, 1]) * dims[0] + ijk[:, 0]
    grid = np.bincount(flat, minlength=int(dims.prod())).astype(np.uint32)
    return grid.reshape(dims[2], dims[1], dims[0])


def plain_item(stamp, xyz, jt, jv, ft, frames):
    lo = int(round(WINDOW[0] * 1e9))
    span = int(round((WINDOW[1] - WINDOW[0]) * 1e9))
    targets = stamp + np.linspace(lo, lo + span, SAMPLES).round().astype(
        np.int64)
    times, values = np.asarray(jt), np.stack(jv)
    joints = np.stack([np.interp(targets, times, values[:, c])
                       for c in range(values.shape[1])], 1).astype(
                           np.float32)
    k = bisect.bisect_left(ft, stamp)
    best = min((i for i in (k - 1, k) if 0 <= i < len(ft)),
               key=lambda i: abs(ft[i] - stamp))
    return {"grid": voxelize(xyz), "joints": joints, "joint_times": targets,
            "image": frames[best]}


def plain_samples(path):
    sweeps, jt, jv, ft, frames = [], [], [], [], []
    span_end = int(round(WINDOW[1] * 1e9))
    for topic, _schema, _log, data in plain_mcap.messages(path):
        if topic == TOPICS["lidar"]:
            sweeps.append(plain_mcap.point_cloud(data))
        elif topic == TOPICS["joints"]:
            t, v = joint_state(data)
            jt.append(t)
            jv.append(v)
        elif topic == TOPICS["camera"]:
            t, f = plain_mcap.image(data)
            ft.append(t)
            frames.append(f.copy())
        while sweeps and jt and jt[-1] >= sweeps[0][0] + span_end and \
                ft and ft[-1] >= sweeps[0][0]:
            yield plain_item(*sweeps.pop(0), jt, jv, ft, frames)
    while sweeps:
        yield plain_item(*sweeps.pop(0), jt, jv, ft, frames)


def plain_recording(args):
    """One recording into one tar of .npy members; returns the samples."""
    path, out = args
    name = os.path.splitext(os.path.basename(path))[0]
    n = 0
    with tarfile.open(os.path.join(out, name + ".tar"), "w") as tar:
        for n, item in enumerate(plain_samples(path), 1):
            for field, array in item.items():
                buf = io.BytesIO()
                np.save(buf, array)
                info = tarfile.TarInfo("%s-%06d.%s.npy" % (name, n - 1,
                                                           field))
                info.size = buf.tell()
                buf.seek(0)
                tar.addfile(info, buf)
    return n


def plain(paths, out, processes):
    os.makedirs(out)
    os.sync()
    start = time.perf_counter()
    if processes == 1:
        samples = sum(plain_recording((p, out)) for p in paths)
    else:
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            samples = sum(pool.map(plain_recording,
                                   [(p, out) for p in paths]))
    os.sync()
    return time.perf_counter() - start, samples


# ---- the comparison ------------------------------------------------------

def shard_arrays(path):
    out = {}
    with tarfile.open(path) as tar:
        for m in tar:
            if m.name.endswith(".npy"):
                key, field = m.name.split(".")[:2]
                out.setdefault(key.rsplit("-", 1)[1], {})[field] = np.load(
                    io.BytesIO(tar.extractfile(m).read()))
    return out


def compare(builder_out, plain_out, manifest):
    first = manifest["recordings"][0]
    ours = {}
    for shard in first["shards"]:
        ours.update(shard_arrays(os.path.join(builder_out, "shards",
                                              shard["name"])))
    theirs = shard_arrays(os.path.join(plain_out, "rec-00.tar"))
    assert sorted(ours) == sorted(theirs), (len(ours), len(theirs))
    for k in sorted(ours)[:20]:
        a, b = ours[k], theirs[k]
        assert np.array_equal(a["grid"], b["grid"]), "grids differ at %s" % k
        np.testing.assert_allclose(a["joints"], b["joints"], rtol=1e-4,
                                   atol=1e-4)
        assert np.array_equal(a["image"], b["image"]), "frames differ"


def rates(runs, recordings, samples):
    seconds = float(np.median(runs))
    return {"seconds": seconds, "runs": runs, "recordings_per_min":
            60 * recordings / seconds, "samples_per_s": samples / seconds}


def measure(tmp, paths, recs, workers, args):
    """Each contender --repeats times, in turn (the machine's load changes
    alike for all three); the first outputs are compared."""
    runs = {"builder": [], "builder_1": [], "plain_1": [], "plain_n": []}
    for r in range(args.repeats):
        for key, jobs in (("builder", len(workers)), ("builder_1", 1)):
            out = os.path.join(tmp, "%s-%d" % (key, r))
            os.sync()
            start = time.perf_counter()
            manifest, _ = dataset.build(recs, out, CONFIG, jobs,
                                        args.device)
            os.sync()
            runs[key].append(time.perf_counter() - start)
            assert manifest["totals"]["done"] == len(recs), \
                manifest["totals"]
        samples = manifest["totals"]["samples"]
        for key, n in (("plain_1", 1), ("plain_n", len(workers))):
            seconds, count = plain(paths, os.path.join(tmp, "%s-%d"
                                                       % (key, r)), n)
            assert count == samples, (key, count, samples)
            runs[key].append(seconds)
        if r == 0:
            compare(os.path.join(tmp, "builder-0"),
                    os.path.join(tmp, "plain_1-0"), manifest)
        for name in os.listdir(tmp):
            if name != "recordings" and (r or name[-2:] != "-0"):
                shutil.rmtree(os.path.join(tmp, name))
    return samples, runs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--recordings", type=int, default=4)
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--points", type=int, default=32768)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", type=int)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--json")
    ap.add_argument("--keep", help="make the recordings and shards here")
    args = ap.parse_args()
    tmp = args.keep or tempfile.mkdtemp()
    try:
        rec = os.path.join(tmp, "recordings")
        os.makedirs(rec, exist_ok=True)
        paths = make_recordings(rec, args.recordings, args.seconds,
                                args.points)
        for p in paths:                 # into the page cache
            with open(p, "rb") as f:
                while f.read(1 << 24):
                    pass
        recs = dataset.find_recordings(rec)
        workers = dataset.devices(args.device, args.jobs)
        samples, runs = measure(tmp, paths, recs, workers, args)
        result = {
            "recordings": len(recs), "seconds_each": args.seconds,
            "points": args.points, "samples": samples,
            "bytes_each": os.path.getsize(paths[0]),
            "workers": len(workers), "device": str(workers[0]),
            "cpus": os.cpu_count(), "load": os.getloadavg(),
            "date": time.strftime("%Y-%m-%d %H:%M"), "host": os.uname()[1]}
        for key, values in runs.items():
            result[key] = rates(values, len(recs), samples)
        report(result)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=1)
    finally:
        if not args.keep:
            shutil.rmtree(tmp)


def report(r):
    where = "cpu" if r["device"] == "cpu" else "cuda"
    print("%s %s: %d recordings of %d s (MCAP, %.0f MB each: %d sweeps of "
          "%d points), %d samples; %d CPUs, load %.1f; median of %d runs" % (
              r["date"], r["host"], r["recordings"], r["seconds_each"],
              r["bytes_each"] / 1e6, r["samples"] // r["recordings"],
              r["points"], r["samples"], r["cpus"], r["load"][0],
              len(r["builder"]["runs"])))
    for key, label in (
            ("builder", "robocache.dataset, %d workers on %s"
             % (r["workers"], where)),
            ("builder_1", "robocache.dataset, 1 worker on %s" % where),
            ("plain_1", "plain Python loop, 1 process"),
            ("plain_n", "plain Python loop, %d processes" % r["workers"])):
        x = r[key]
        print("%-42s %7.1f s  %7.1f recordings/min  %8.1f samples/s" % (
            label, x["seconds"], x["recordings_per_min"],
            x["samples_per_s"]))
    print("builder vs plain: %.1fx with 1 process each, %.1fx with %d" % (
        r["plain_1"]["seconds"] / r["builder_1"]["seconds"],
        r["plain_n"]["seconds"] / r["builder"]["seconds"], r["workers"]))


if __name__ == "__main__":
    main()
