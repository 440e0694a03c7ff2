"""Which recordings a dataset is built from, and the name and key each
has in it (docs/dataset.md, "Recordings")."""
import collections
import hashlib
import json
import os
import pathlib
import re

from .._replay import (RECORDING_SUFFIXES, _is_recording_file, _is_rosbag2,
                       _without_twins)

# name: the recording's path relative to the folder given (or to the
# common folder of the files given), "/"-separated: its identity in the
# manifest.  key: the name made safe for file names, with a hash of the
# name so that keys never collide: prefix of its shards and samples.
Recording = collections.namedtuple("Recording", "name path key")


def _is_recording(p):
    if p.is_dir():
        return _is_rosbag2(p)
    return _is_recording_file(p)


def _walk(folder):
    """The recordings under `folder`, rosbag2 folders as one."""
    found = []
    for root, dirs, files in os.walk(folder):
        root = pathlib.Path(root)
        dirs.sort()
        for d in list(dirs):
            if _is_rosbag2(root / d):
                found.append(root / d)
                dirs.remove(d)
        found += _without_twins([root / f for f in sorted(files)
                                 if _is_recording_file(f)])
    return found


_SUFFIX_AT_END = re.compile("(%s)$" % "|".join(map(re.escape,
                                                    RECORDING_SUFFIXES)))


def key(name):
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", _SUFFIX_AT_END.sub("", name))[-48:]
    return "%s-%s" % (stem, hashlib.sha256(name.encode()).hexdigest()[:8])


def _list_file(path):
    """The paths listed in a text file, one a line (# comments), relative
    to the file's folder."""
    base = pathlib.Path(path).parent
    lines = pathlib.Path(path).read_text().splitlines()
    return [base / line.strip() for line in lines
            if line.strip() and not line.lstrip().startswith("#")]


def find(inputs):
    """Recordings from `inputs`: files (.bag, .mcap, .db3 and their
    .bag.active, .mcap.zstd, .db3.zstd), rosbag2 folders,
    folders (searched recursively) and @LIST text files naming any of
    them; sorted by name.  Raises FileNotFoundError or ValueError for an
    input that is not there or not a recording."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    named, loose = {}, []
    for item in inputs:
        text = os.fspath(item)
        paths = (_list_file(text[1:]) if text.startswith("@")
                 else [pathlib.Path(text)])
        for p in paths:
            if not p.exists():
                raise FileNotFoundError("robocache.dataset: no such "
                                        "recording or folder: %s" % p)
            if p.is_dir() and not _is_rosbag2(p):
                for r in _walk(p):
                    named[r.resolve()] = r.relative_to(p).as_posix()
            elif _is_recording(p):
                loose.append(p.resolve())
            else:
                raise ValueError("robocache.dataset: %s is not a recording;"
                                 " accepted: .bag (ROS 1), .mcap, rosbag2 "
                                 "folders, folders of them, @LIST files"
                                 % p)
    if loose:
        common = pathlib.Path(os.path.commonpath([p.parent for p in loose]))
        for p in loose:
            named.setdefault(p, p.relative_to(common).as_posix())
    by_name = {}
    for path, name in named.items():
        if name in by_name and by_name[name] != path:
            raise ValueError("robocache.dataset: two recordings are named "
                             "%s (%s and %s): give their common folder "
                             "instead" % (name, by_name[name], path))
        by_name[name] = path
    return [Recording(n, str(by_name[n]), key(n)) for n in sorted(by_name)]


def write_plan(path, recordings):
    """The recordings, one JSON [name, path] a line: what the Slurm tasks
    and the merge step read."""
    with open(path, "w") as f:
        for r in recordings:
            f.write(json.dumps([r.name, r.path]) + "\n")


def read_plan(path):
    return [Recording(name, rpath, key(name)) for name, rpath in
            (json.loads(line) for line in
             pathlib.Path(path).read_text().splitlines() if line)]
