"""The dataset's manifest: the per-recording manifests merged into
manifest.json (docs/dataset.md, "Manifest"), and the summary printed
from it."""
import os

from . import _build, _shards
from ._settings import FORMAT

MANIFEST = "manifest.json"
_ENTRY_KEYS = ("recording", "key", "status", "samples", "shards", "size",
               "error", "warnings")


def merge(out, recordings, conf, conf_hash, version):
    """Writes <out>/manifest.json from the manifests of `recordings` (in
    their order) and returns it.  A recording without a manifest for this
    configuration is "missing": its worker or task did not finish."""
    entries = []
    for rec in recordings:
        entry = _build.read_json(_build.manifest_path(out, rec))
        if not isinstance(entry, dict) or \
                entry.get("config_hash") != conf_hash:
            entry = {"recording": rec.name, "key": rec.key,
                     "status": "missing", "samples": 0, "shards": [],
                     "size": None, "warnings": [],
                     "error": "no result for this "
                     "configuration: its worker or Slurm task did not "
                     "finish (see the task's log)"}
        entries.append({k: entry.get(k) for k in _ENTRY_KEYS})
    totals = {"recordings": len(entries), "samples": 0, "shards": 0,
              "bytes": 0, "done": 0, "failed": 0, "missing": 0}
    for e in entries:
        totals[e["status"]] += 1
        totals["samples"] += e["samples"]
        totals["shards"] += len(e["shards"])
        totals["bytes"] += sum(s["bytes"] for s in e["shards"])
    manifest = {"format": FORMAT, "robocache": version,
                "config_hash": conf_hash, "config": conf,
                "shards_folder": _build.SHARDS, "recordings": entries,
                "totals": totals}
    _shards.write_json(os.path.join(out, MANIFEST), manifest)
    return manifest


def _size(n):
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return ("%d %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1000.0


def summary(out, manifest, run=None):
    """The lines printed at the end of a build or a merge.  `run`: what
    this run did, from the runner: seconds, workers, device, skipped (the
    recordings already built), built and samples (those it built)."""
    t = manifest["totals"]
    done = ("%d built, %d already built (skipped)" % (
        t["done"] - run["skipped"], run["skipped"]) if run
        else "%d done" % t["done"])
    lines = ["dataset %s (config %s)" % (out, manifest["config_hash"][:19]),
             "recordings: %d in all: %s, %d failed, %d missing" % (
                 t["recordings"], done, t["failed"], t["missing"]),
             "samples:    %d in %d shards, %s" % (t["samples"], t["shards"],
                                                  _size(t["bytes"]))]
    if run and run["seconds"] > 0:
        lines.append("this run:   %.1f s, %d worker%s on %s: %d recordings "
                     "(%.1f a minute), %d samples (%.1f a second)" % (
                         run["seconds"], run["workers"],
                         "" if run["workers"] == 1 else "s", run["device"],
                         run["built"], 60.0 * run["built"] / run["seconds"],
                         run["samples"], run["samples"] / run["seconds"]))
    for e in manifest["recordings"]:
        if e["status"] != "done":
            lines.append("%-11s %s: %s" % (e["status"] + ":", e["recording"],
                                           e["error"]))
        for text in e.get("warnings") or []:
            lines.append("warning:    %s: %s" % (e["recording"], text))
    lines.append("manifest:   %s" % os.path.join(out, MANIFEST))
    return lines
