"""One recording into shards, with its own manifest; what every worker,
local or a Slurm task, runs (docs/dataset.md)."""
import json
import os
import warnings

from .._replay import _negotiation_hint
from . import _shards
from ._samples import samples
from ._settings import FORMAT

SHARDS, MANIFESTS = "shards", "manifests"


def manifest_path(out, rec):
    return os.path.join(out, MANIFESTS, rec.key + ".json")


def read_json(path):
    """The JSON at `path`, or None where there is none or it is damaged."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def finished(out, rec, conf_hash):
    """The recording's manifest when its shards are complete for this
    configuration: built from a recording of the same size, every shard
    there with its checksum; else None."""
    entry = read_json(manifest_path(out, rec))
    if (not isinstance(entry, dict) or entry.get("status") != "done"
            or entry.get("config_hash") != conf_hash
            or entry.get("size") != _size(rec.path)):
        return None
    for shard in entry.get("shards", []):
        path = os.path.join(out, SHARDS, shard["name"])
        try:
            if _shards.sha256_file(path) != shard["sha256"]:
                return None
        except OSError:
            return None
    return entry


def _size(path):
    """Bytes of a recording file or rosbag2 folder."""
    if not os.path.isdir(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(root, f))
               for root, _, files in os.walk(path) for f in files)


def members(rec, index, sample):
    """A sample's tar members: each array as .npy, the rest as .json."""
    meta = dict(sample["meta"], recording=rec.name, index=index)
    out = {"json": _shards.json_bytes(meta)}
    for name, array in sample.items():
        if name != "meta":
            out[name + ".npy"] = _shards.npy(array)
    return out


def _warning_texts(caught):
    """The distinct RuntimeWarnings of a recording's build (messages the
    recording source skipped, say), in order; the others are shown as
    they came."""
    texts = []
    for w in caught:
        if not issubclass(w.category, RuntimeWarning):
            warnings.showwarning(w.message, w.category, w.filename,
                                 w.lineno)
        elif str(w.message) not in texts:
            texts.append(str(w.message))
    return texts


def build_recording(out, rec, conf, conf_hash, device="cpu",
                    progress=None):
    """Builds the shards of recording `rec` unless they are complete;
    returns its manifest entry, with "skipped": True where it was.  A
    recording that fails (unreadable, corrupt, a topic missing) gets an
    entry with status "failed" and the error, and no shards."""
    done = finished(out, rec, conf_hash)
    if done is not None:
        return dict(done, skipped=True)
    folder = os.path.join(out, SHARDS)
    path = manifest_path(out, rec)
    if os.path.exists(path):
        os.unlink(path)
    _shards.remove_key(folder, rec.key)
    entry = {"format": FORMAT, "recording": rec.name, "key": rec.key,
             "config_hash": conf_hash, "samples": 0, "shards": [],
             "error": None}
    shards = conf["shards"]
    writer = _shards.ShardWriter(folder, rec.key, shards["max_samples"],
                                 shards["max_bytes"], shards["compression"],
                                 shards.get("level", 1))
    try:
        entry["size"] = _size(rec.path)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            for sample in samples(conf, rec.path, device):
                writer.add("%s-%06d" % (rec.key, entry["samples"]),
                           members(rec, entry["samples"], sample))
                entry["samples"] += 1
                if progress:
                    progress(1)
        entry["warnings"] = _warning_texts(caught)
        entry["shards"] = writer.finish()
        entry["status"] = "done"
    except Exception as err:     # the recording fails, not the run
        writer.abort()
        _shards.remove_key(folder, rec.key)
        # The message, without GStreamer's debug text (source lines and
        # the pipeline's name, which would make manifests differ), but for
        # what its reason means here.
        error = "%s: %s%s" % (type(err).__name__, str(err).split("\n")[0],
                              _negotiation_hint(err, (
                                  "topics.lidar", "topics.joints",
                                  "topics.camera")))
        entry.update(status="failed", samples=0, shards=[], error=error,
                     warnings=[])
        entry.setdefault("size", None)
    _shards.write_json(path, entry)
    return entry
