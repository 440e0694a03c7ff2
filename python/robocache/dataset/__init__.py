"""robocache.dataset: a fleet's recordings into training shards that
PyTorch loaders read without robocache (docs/dataset.md).

    python3 -m robocache.dataset -c dataset.toml -o shards/ recordings/
    python3 -m robocache.dataset -c dataset.toml -o shards/ recordings/ --slurm

Each recording (ROS 1 bag, MCAP, rosbag2 folder) is played by one
robocache pipeline, on a core or a GPU per worker; its samples (the
sweep's voxel grid or pillars, the joint states resampled around it, the
nearest camera frame) go into WebDataset-style tar shards of .npy arrays,
and manifest.json lists every recording, its shards, sample counts,
sha256 checksums, the configuration's hash and errors.

From Python:

    from robocache import dataset
    recs = dataset.find_recordings(["recordings/"])
    manifest, run = dataset.build(recs, "shards/", {"grid": {"dims": 128}})
"""
from ._recordings import Recording, find as find_recordings
from ._run import build, devices, merge
from ._samples import samples
from ._settings import ConfigError, normalise as normalise_config, \
    read as read_config

__all__ = ["ConfigError", "Recording", "build", "devices",
           "find_recordings", "merge", "normalise_config", "read_config",
           "samples"]
