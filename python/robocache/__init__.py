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

__all__ = ["Pipeline", "RobocacheError", "Sample",
           "centroids", "cuda_available", "cuda_unavailable_reason", "fuse",
           "resample", "run", "voxelize"]

