#!/usr/bin/env python3
"""Samples per second into a training loop: robocache.RecordingDataset
against a plain PyTorch loader that does the same work (docs/performance.md,
"Python").

Both read one MCAP recording (uncompressed chunks) and yield, per lidar
sweep: its count grid (float32, z, y, x), the joint states resampled
(linear) at the sweep's time + linspace(-0.1 s, 0.1 s, 21), and the camera
frame nearest the sweep, all on the GPU.

  robocache  RecordingDataset: robocachemcapsrc (C reader, CDR decode)
             ! robocachevoxelize (CUDA); per sample one C call
             (robocache_align_write) converts the grid to float32 on the
             GPU, resamples the joints and copies them and the frame
  plain      tests/bench/plain_mcap.py (the file parsed and CDR decoded in
             Python/NumPy, as the `mcap` packages do), points copied to
             the GPU, voxel index arithmetic + torch.bincount, joints by
             torch.searchsorted + gather + lerp, frame copied to the GPU

The loop is a stand-in training step (a reduction over each tensor) with
one torch.cuda.synchronize at the end, per sample or, with --batch-size
N, per batch of N samples stacked by the DataLoader's default collate
(as docs/python.md's example loop takes them; both loaders alike).  Each
loader runs once to warm up (file in the page cache, CUDA initialised),
then `--repeats` times; the median samples/s is reported.  The first
sweeps of both, copied back in the warm-up pass, are compared.

  python3 python_dataset.py FILE.mcap [--repeats N] [--json OUT]
      [--lidar /points --joints /joints --camera /camera] [--device cuda]
      [--batch-size N]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plain_mcap  # noqa: E402
import robocache  # noqa: E402

VOXEL = (0.2, 0.2, 0.2)
ORIGIN = (-25.6, -25.6, -3.2)
DIMS = (256, 256, 32)
WINDOW = (-0.1, 0.1)
JOINT_SAMPLES = 21


class PlainDataset(torch.utils.data.IterableDataset):
    """The same samples without robocache: what one writes in PyTorch."""

    def __init__(self, path, lidar, joints, camera, device):
        super().__init__()
        self.path, self.device = path, torch.device(device)
        self.topics = (lidar, joints, camera)

    def voxelize(self, xyz):
        pts = torch.from_numpy(xyz).to(self.device, non_blocking=False)
        origin = torch.tensor(ORIGIN, device=self.device,
                              dtype=torch.float64)
        size = torch.tensor(VOXEL, device=self.device, dtype=torch.float64)
        ijk = torch.floor((pts.double() - origin) / size)
        dims = torch.tensor(DIMS, device=self.device, dtype=torch.float64)
        inside = ((ijk >= 0) & (ijk < dims)).all(dim=1)
        ijk = ijk[inside].long()
        flat = (ijk[:, 2] * DIMS[1] + ijk[:, 1]) * DIMS[0] + ijk[:, 0]
        n = DIMS[0] * DIMS[1] * DIMS[2]
        grid = torch.bincount(flat, minlength=n)
        return grid.view(DIMS[2], DIMS[1], DIMS[0]).float()

    def resample(self, times, values, targets):
        st = torch.from_numpy(times).to(self.device)
        sv = torch.from_numpy(values).to(self.device).float()
        tt = torch.from_numpy(targets).to(self.device)
        s = st.shape[0]
        i2 = torch.searchsorted(st, tt, right=True).clamp_(1, s - 1)
        i1 = i2 - 1
        t1, t2 = st[i1], st[i2]
        w = ((tt - t1).double() / (t2 - t1).clamp_min(1).double()).clamp_(
            0, 1).float().unsqueeze(1)
        return torch.lerp(sv[i1], sv[i2], w)

    def __iter__(self):
        lidar, joint_topic, camera = self.topics
        lo = int(round(WINDOW[0] * 1e9))
        span = int(round((WINDOW[1] - WINDOW[0]) * 1e9))
        sweeps, joint_t, joint_v, frames = [], [], [], []
        for topic, _schema, _log, data in plain_mcap.messages(self.path):
            if topic == lidar:
                sweeps.append(plain_mcap.point_cloud(data))
            elif topic == joint_topic:
                t, v = plain_mcap.joint_state(data)
                joint_t.append(t)
                joint_v.append(v)
            elif topic == camera:
                frames.append(plain_mcap.image(data))
            # A sweep is ready once the joints pass its window's end and
            # a frame is at or after it.
            while sweeps and joint_t and joint_t[-1] >= sweeps[0][0] + lo \
                    + span and frames and frames[-1][0] >= sweeps[0][0]:
                yield self.item(sweeps[0], joint_t, joint_v, frames,
                                lo, span)
                self.forget(sweeps.pop(0)[0], lo, joint_t, joint_v, frames)
        while sweeps:
            yield self.item(sweeps[0], joint_t, joint_v, frames, lo, span)
            self.forget(sweeps.pop(0)[0], lo, joint_t, joint_v, frames)

    @staticmethod
    def forget(stamp, lo, joint_t, joint_v, frames):
        """Drops the joint states and frames that no sweep after the one
        at `stamp` needs, so that a sample's cost does not grow with the
        recording."""
        keep = max(int(np.searchsorted(joint_t, stamp + lo, "right")) - 1, 0)
        del joint_t[:keep], joint_v[:keep]
        while len(frames) > 1 and frames[1][0] <= stamp:
            frames.pop(0)

    def item(self, sweep, joint_t, joint_v, frames, lo, span):
        stamp, xyz = sweep
        targets = stamp + np.linspace(lo, lo + span, JOINT_SAMPLES).round(
        ).astype(np.int64)
        times = np.asarray(joint_t, np.int64)
        frame_t, frame = min(frames, key=lambda f: abs(f[0] - stamp))
        return {"voxels": self.voxelize(xyz),
                "joints": self.resample(times, np.stack(joint_v), targets),
                "image": torch.from_numpy(frame.copy()).to(
                    self.device),
                "time": stamp}


def train_loop(dataset, keep=0, batch_size=None):
    """A stand-in training step per sample (or per batch of
    `batch_size`); samples/s and the first `keep` items copied to the
    CPU, for the comparison (the warm-up pass keeps them, so that the
    timed passes copy nothing back)."""
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size,
                                         num_workers=0)
    first, n, acc = [], 0, None
    t0 = time.perf_counter()
    for item in loader:
        step = (item["voxels"].mean() + item["joints"].float().mean() +
                item["image"].float().mean())
        acc = step if acc is None else acc + step
        if len(first) < keep:
            first.append({k: v.detach().cpu() if torch.is_tensor(v) else v
                          for k, v in item.items()})
        n += 1 if batch_size is None else len(item["time"])
    if acc is not None:
        acc.item()
    torch.cuda.synchronize() if torch.cuda.is_available() else None
    return n / (time.perf_counter() - t0), n, first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--lidar", default="/points")
    ap.add_argument("--joints", default="/joints")
    ap.add_argument("--camera", default="/camera")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available()
                    else "cpu")
    ap.add_argument("--batch-size", type=int, default=None,
                    help="samples a training step takes (default: one, "
                    "unbatched)")
    args = ap.parse_args()
    if args.batch_size is not None and args.batch_size < 1:
        ap.error("--batch-size must be >= 1")

    def ours():
        return robocache.RecordingDataset(
            args.file, args.lidar, args.joints, args.camera,
            voxel_size=VOXEL, origin=ORIGIN, dims=DIMS, mode="count",
            joint_window=WINDOW, joint_samples=JOINT_SAMPLES,
            device=args.device)

    def plain():
        return PlainDataset(args.file, args.lidar, args.joints, args.camera,
                            args.device)

    result = {"file": args.file, "bytes": os.path.getsize(args.file),
              "device": (torch.cuda.get_device_name(0)
                         if args.device.startswith("cuda") else "cpu"),
              "torch": torch.__version__, "batch_size": args.batch_size}
    firsts = {}
    for name, make in (("robocache", ours), ("plain", plain)):
        rate, n, firsts[name] = train_loop(make(), keep=3)     # warm-up
        rates = [train_loop(make(), batch_size=args.batch_size)[0]
                 for _ in range(args.repeats)]
        result[name] = {"samples": n, "samples_per_s": float(
            np.median(rates)), "runs": rates}
    a, b = firsts["robocache"], firsts["plain"]
    for x, y in zip(a, b):
        assert torch.equal(x["voxels"], y["voxels"]), "grids differ"
        np.testing.assert_allclose(x["joints"].numpy(), y["joints"].numpy(),
                                   rtol=1e-4, atol=1e-4)
        assert torch.equal(x["image"], y["image"]), "frames differ"
    result["speedup"] = (result["robocache"]["samples_per_s"] /
                         result["plain"]["samples_per_s"])
    print("%s (%d MB) on %s: robocache %.1f samples/s, plain PyTorch %.1f "
          "samples/s (%d sweeps, %s): %.1fx" % (
              args.file, result["bytes"] >> 20, result["device"],
              result["robocache"]["samples_per_s"],
              result["plain"]["samples_per_s"], result["robocache"]["samples"],
              "unbatched" if args.batch_size is None
              else "batches of %d" % args.batch_size, result["speedup"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
