"""robocache from Python: the kernels on NumPy arrays and torch tensors
(CPU or CUDA, no copy in or out), and GStreamer pipelines whose buffers
come out as arrays over their own memory.

    import robocache, torch
    out = robocache.resample(data, times, targets)   # torch in, torch out

docs/python.md describes the package.
"""
from ._config import VERSION as __version__
from ._lib import RobocacheError, cuda_available, cuda_unavailable_reason
from ._kernels import centroids, fuse, resample, voxelize
from ._pipeline import Pipeline, Sample, run

__all__ = ["__version__", "Pipeline", "RecordingDataset", "RobocacheError",
           "Sample", "centroids", "cuda_available", "cuda_unavailable_reason",
           "fuse", "resample", "run", "voxelize"]


def __getattr__(name):
    # RecordingDataset imports torch: only when asked for.
    if name == "RecordingDataset":
        from ._dataset import RecordingDataset
        return RecordingDataset
    raise AttributeError("module 'robocache' has no attribute %r" % name)
