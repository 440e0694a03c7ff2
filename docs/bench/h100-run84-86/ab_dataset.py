"""RecordingDataset A/B in one process (session 6, run 84): the code of
run 83 (frames made into tensors as they come, joints resampled on the
GPU) against frames made only when nearest and joints resampled on the
CPU.  Passes alternate; medians of 9."""
import sys, time
import numpy as np
import torch, robocache
import robocache._dataset as D
from robocache._pipeline import Pipeline
from robocache._replay import _aligned, _joint_span, _nearest, _targets, _NS
from robocache import _kernels

rec = sys.argv[1]

def old_play(self, index):
    lo = int(round(self.joint_window[0] * _NS))
    hi = int(round(self.joint_window[1] * _NS))
    device = (self.device.index or 0) if self.device.type == "cuda" else "cpu"
    with Pipeline(self.description(self.files[index]), device=device,
                  like="torch") as p:
        values = ((s.stream, s.pts, np.array(s.array[0])
                   if s.stream == "joints" else s.array)
                  for s in p._samples(copied=("joints",)))
        for time_, grid, joints, frames in _aligned(values, lo, hi, bool(self.camera_topic)):
            yield old_item(self, index, time_, grid, joints, frames)

def old_item(self, index, time_, grid, joints, frames):
    item = {"voxels": grid.to(self.device).float(), "time": time_, "file": index}
    targets = _targets(time_, self.joint_window, self.joint_samples)
    item["joint_times"] = torch.from_numpy(targets)
    span = _joint_span(joints, targets)
    times, values = span
    item["joints"] = _kernels.resample(torch.from_numpy(values).to(self.device),
                                       torch.from_numpy(times).to(self.device),
                                       torch.from_numpy(targets).to(self.device),
                                       self.joint_method).float()
    best = _nearest(frames, time_)
    item["image_time"], item["image"] = best[0], best[1].to(self.device).contiguous()
    return item

new_play = D.RecordingDataset._play
ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", device="cuda")

def loop():
    n, acc = 0, None
    first = None
    for item in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0):
        s = (item["voxels"].mean() + item["joints"].float().mean() +
             item["image"].float().mean())
        acc = s if acc is None else acc + s
        if first is None:
            first = {k: v.cpu() if torch.is_tensor(v) else v for k, v in item.items()}
        n += 1
    acc.item(); torch.cuda.synchronize()
    return n, first

times = {"run 83 code": [], "deferred frames, CPU joints": []}
firsts = {}
for r in range(10):
    for name, play in (("run 83 code", old_play), ("deferred frames, CPU joints", new_play)):
        D.RecordingDataset._play = play
        t = time.perf_counter(); n, first = loop(); dt = time.perf_counter() - t
        if r:
            times[name].append(dt)
        firsts[name] = first
for name, ts in times.items():
    ts.sort()
    print("%-30s median %.1f ms (min %.1f, max %.1f) over %d passes: %.0f samples/s"
          % (name, ts[len(ts) // 2] * 1e3, ts[0] * 1e3, ts[-1] * 1e3, len(ts), 60 / ts[len(ts) // 2]))
a, b = firsts.values()
for k in ("voxels", "image"):
    assert torch.equal(a[k], b[k]), k
print("first sample: voxels and image equal; joints max abs difference %.3g"
      % (a["joints"] - b["joints"]).abs().max().item())
