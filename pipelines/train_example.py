#!/usr/bin/env python3
"""A small training loop over robocache.RecordingDataset (torch).

Each lidar sweep of the recordings becomes a voxel grid (computed on the
GPU where there is one) with the joint states resampled around it and,
with --camera, the nearest camera frame; a tiny 3-D convolution network
learns to predict the joint vector at the sweep's time from the grid.  It
is a smoke test of the data path more than a model: the loss should fall.

usage: pipelines/train_example.py [RECORDING ...] [--epochs N]
           [--device cpu|cuda] [--lidar TOPIC] [--joints TOPIC]
           [--camera TOPIC] [--workers N]

RECORDING: ROS 1 .bag, .mcap or rosbag2 folders.  Without one, 2 s of the
synthetic sensors (robocachelidarsrc, robocachejointsrc, videotestsrc) are
recorded first with robocachemcapsink into a temporary folder.  Run it
after a build, from the source tree (it finds build/python) or with
PYTHONPATH=<build>/python.  docs/python.md describes the dataset.
"""
import argparse
import os
import pathlib
import sys
import tempfile
import time

try:
    import robocache
except ImportError:
    build = os.environ.get("ROBOCACHE_BUILD",
                           pathlib.Path(__file__).resolve().parent.parent
                           / "build")
    sys.path.insert(0, str(pathlib.Path(build) / "python"))
    import robocache

import torch
from torch import nn

# The grid of the synthetic scene: 51.2 m x 51.2 m x 6.4 m in 0.8 m voxels.
GRID = {"voxel_size": 0.8, "origin": (-25.6, -25.6, -3.2),
        "dims": (64, 64, 8)}


def make_recording(path, seconds=2, camera=True):
    """Records the synthetic lidar (10 Hz), joints (100 Hz) and, with
    `camera`, a 15 Hz RGB test picture as a ROS 2 MCAP file at `path`;
    returns the camera topic or None."""
    sink = ("robocachemcapsink name=m location=%s "
            "sink_0::topic=/velodyne_points sink_1::topic=/joint_states"
            % path)
    sources = ("robocachelidarsrc num-buffers=%d points-per-sweep=4000 ! "
               "m.sink_0 robocachejointsrc num-buffers=%d rate=100/1 ! "
               "m.sink_1" % (10 * seconds, 100 * seconds))
    if camera:
        try:
            robocache.run(sink + " sink_2::topic=/camera/image " + sources +
                          " videotestsrc num-buffers=%d ! video/x-raw,"
                          "format=RGB,width=32,height=24,framerate=15/1 ! "
                          "m.sink_2" % (15 * seconds), timeout=120)
            return "/camera/image"
        except robocache.RobocacheError as err:
            print("recording without a camera: %s" % err, file=sys.stderr)
            if os.path.exists(path):
                os.unlink(path)
    robocache.run(sink + " " + sources, timeout=120)
    return None


class GridToJoints(nn.Module):
    """Voxel counts (z, y, x) -> the joint vector at the sweep's time."""

    def __init__(self, channels):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv3d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool3d(1), nn.Flatten())
        self.head = nn.Linear(16, channels)

    def forward(self, grid):
        return self.head(self.features(torch.log1p(grid).unsqueeze(1)))


def train(files, epochs=3, device=None, lidar="/velodyne_points",
          joints="/joint_states", camera=None, workers=0, log=print):
    """Trains GridToJoints over `files`; returns the mean loss of each
    epoch."""
    data = robocache.RecordingDataset(files, lidar, joints, camera,
                                      device=device, **GRID)
    loader = torch.utils.data.DataLoader(data, batch_size=4,
                                         num_workers=workers)
    model, optimiser, losses = None, None, []
    for epoch in range(epochs):
        start, total, n = time.monotonic(), 0.0, 0
        for batch in loader:
            grid = batch["voxels"].to(data.device)
            middle = batch["joints"].shape[1] // 2
            target = batch["joints"][:, middle].to(data.device)
            if model is None:
                model = GridToJoints(target.shape[1]).to(data.device)
                optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
            loss = nn.functional.mse_loss(model(grid), target)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item() * len(grid)
            n += len(grid)
            if camera and "image" in batch:
                assert batch["image"].dtype == torch.uint8
        if n == 0:
            raise RuntimeError("no sweep in %s (topic %s)" % (files, lidar))
        losses.append(total / n)
        log("epoch %d: %d sweeps on %s, loss %.4f (%.2f s)" % (
            epoch, n, data.device, losses[-1], time.monotonic() - start))
    return losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("recordings", nargs="*")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--device", default=None)
    ap.add_argument("--lidar", default="/velodyne_points")
    ap.add_argument("--joints", default="/joint_states")
    ap.add_argument("--camera", default=None)
    ap.add_argument("--workers", type=int, default=0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files, camera = args.recordings, args.camera
        if not files:
            files = [os.path.join(tmp, "synthetic.mcap")]
            camera = make_recording(files[0])
        losses = train(files, args.epochs, args.device, args.lidar,
                       args.joints, camera, args.workers)
    print("loss %.4f -> %.4f" % (losses[0], losses[-1]))


if __name__ == "__main__":
    main()
