"""A build from start to manifest, locally or as one Slurm array task:
what the command and the Python API share."""
import os
import time

from .. import _lib
from .._config import VERSION
from . import _build, _local, _manifest, _settings, _shards

CONFIG = "config.json"


def prepare(out, config):
    """The checked configuration (a dict, a file path or None for the
    defaults) and its hash; makes the output folders and writes the
    configuration to <out>/config.json."""
    raw = (_settings.read(config)
           if isinstance(config, (str, os.PathLike)) else config)
    conf = _settings.normalise(raw)
    conf_hash = _settings.digest(conf, VERSION)
    for sub in ("", _build.SHARDS, _build.MANIFESTS):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    _shards.write_json(os.path.join(out, CONFIG), conf)
    return conf, conf_hash


def devices(device="auto", jobs=None):
    """One entry per worker: "cpu" or a CUDA device index.  auto: CUDA
    where robocache has a usable device.  Default jobs: the CPUs of this
    Slurm task (SLURM_CPUS_PER_TASK), else the cores this process may run
    on (CPU); the CUDA devices (CUDA)."""
    if device not in ("auto", "cpu", "cuda"):
        raise ValueError("robocache.dataset: device=%r; accepted: auto, "
                         "cpu, cuda" % (device,))
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise ValueError("robocache.dataset: jobs=%r; accepted: a whole "
                         "number >= 1" % (jobs,))
    cuda = device != "cpu" and _lib.cuda_available()
    if device == "cuda" and not cuda:
        raise _lib.RobocacheError("robocache.dataset: device=cuda, but no "
                                  "CUDA device is usable: %s"
                                  % _lib.cuda_unavailable_reason())
    if not cuda:
        return ["cpu"] * (jobs or int(os.environ.get("SLURM_CPUS_PER_TASK")
                                      or len(os.sched_getaffinity(0))))
    count = _lib._cuda_state["count"]
    return [i % count for i in range(jobs or count)]


def build(recordings, out, config=None, jobs=None, device="auto",
          stream=None, merge=True):
    """Builds the shards of `recordings` (a list of Recording, see
    find_recordings) into `out`; returns (manifest, run), `run` saying
    what this call did (for the summary).  merge=False (a Slurm array
    task) leaves manifest.json to the merge step and returns (None,
    run)."""
    conf, conf_hash = prepare(out, config)
    workers = devices(device, jobs)
    start = time.monotonic()
    progress = _local.Progress(recordings, stream)
    entries = _local.run(out, recordings, conf, conf_hash, workers,
                         progress)
    progress.clear()
    built = [e for e in entries.values() if not e.get("skipped")]
    run = {"seconds": time.monotonic() - start,
           "workers": len(workers), "device": "cpu" if workers[0] == "cpu"
           else "cuda", "built": len(built),
           "skipped": len(entries) - len(built),
           "samples": sum(e["samples"] for e in built)}
    manifest = (_manifest.merge(out, recordings, conf, conf_hash, VERSION)
                if merge else None)
    return manifest, run


def merge(out, recordings, config):
    """Writes <out>/manifest.json for `recordings` (the Slurm merge
    step); returns it."""
    conf = _settings.normalise(_settings.read(config)
                               if isinstance(config, (str, os.PathLike))
                               else config)
    return _manifest.merge(out, recordings, conf,
                           _settings.digest(conf, VERSION), VERSION)
