"""Shards: WebDataset-style tar files of .npy arrays (docs/dataset.md,
"Layout"), written to a temporary name and renamed when complete, with
the same bytes for the same samples whatever the machine, time or user."""
import gzip
import hashlib
import io
import json
import os
import re
import socket
import tarfile

import numpy as np

# Every tar member is a regular file with these fields, so that a shard's
# bytes depend on its samples alone.  USTAR: no PAX or GNU extension
# headers (the names are short ASCII, checked below).
_MEMBER = {"mtime": 0, "uid": 0, "gid": 0, "uname": "", "gname": "",
           "mode": 0o644, "type": tarfile.REGTYPE}
_BLOCK = 512


def npy(array):
    """The .npy file of `array` (C order, no pickle) as two buffers: the
    header and the array's own memory (no copy)."""
    array = np.ascontiguousarray(array)
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        head, np.lib.format.header_data_from_array_1_0(array))
    # memoryview cannot cast an empty array (pillars of a sweep with no
    # point in the grid, a camera with no frame yet): it has no bytes.
    return (head.getvalue(),
            memoryview(array).cast("B") if array.size else b"")


def json_bytes(value):
    return ((json.dumps(value, sort_keys=True, separators=(",", ":"))
             + "\n").encode(),)


def _padded(size):
    return -(-size // _BLOCK) * _BLOCK


def _size(chunks):
    return sum(len(c) for c in chunks)


def sample_bytes(members):
    """What `members` (name -> buffers) add to a tar file."""
    return sum(_BLOCK + _padded(_size(c)) for c in members.values())


def _tar_header(name, size):
    info = tarfile.TarInfo(name)
    for field, value in _MEMBER.items():
        setattr(info, field, value)
    info.size = size
    return info.tobuf(tarfile.USTAR_FORMAT, "ascii", "strict")


def temp_name(final):
    """A temporary name beside `final`, unique to this host and process;
    hidden (a dot first), so that nothing reading the folder takes it for
    a shard."""
    head, tail = os.path.split(final)
    return os.path.join(head, ".%s.partial-%s-%d" % (
        tail, socket.gethostname(), os.getpid()))


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()


def _running(pid):
    """Whether process `pid` runs: a zombie (killed, not yet reaped, as
    under a container without an init that reaps) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True             # running, as another user
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def remove_stale_partials(final):
    """Removes the temporary files of `final` left by processes of this
    host that no longer run (a run killed while writing it); those of
    other hosts are left, as nothing here can tell whether they run."""
    head, tail = os.path.split(final)
    prefix = ".%s.partial-%s-" % (tail, socket.gethostname())
    try:
        names = os.listdir(head or ".")
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):]
        if not name.startswith(prefix) or not pid.isdigit():
            continue
        if _running(int(pid)):
            continue
        try:
            os.unlink(os.path.join(head, name))
        except FileNotFoundError:
            pass


def write_json(path, value):
    """`value` as JSON at `path`, through a temporary name, on disk
    (fsync) before the rename: a manifest is whole or absent, also after a
    machine crash; what a killed writer left of it is removed."""
    remove_stale_partials(path)
    temp = temp_name(path)
    with open(temp, "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)


class _Hashing:
    """A write-only file that hashes and counts what goes through it."""

    def __init__(self, f):
        self.f, self.size, self.hash = f, 0, hashlib.sha256()

    def write(self, data):
        self.hash.update(data)
        self.size += len(data)
        return self.f.write(data)


def _tar_end(offset):
    """The size of a tar whose members end at `offset`, once closed (_close:
    two zero blocks, then zeros to a whole record)."""
    end = offset + 2 * _BLOCK
    return end + -end % tarfile.RECORDSIZE


class ShardWriter:
    """Writes the samples of one recording into shards <key>-00000.tar,
    <key>-00001.tar, ... in `folder`: a new shard once the next sample
    would pass `max_samples` or `max_bytes` of tar (a shard holds at least
    one sample).  gzip: .tar.gz, compressed at `level` with no name or
    time in the gzip header.  Each shard is written to a temporary name
    and renamed when complete; `shards` lists those done: name, samples,
    bytes (of the file), sha256 (of the file)."""

    def __init__(self, folder, key, max_samples, max_bytes,
                 compression="none", level=1):
        self.folder, self.key = folder, key
        self.max_samples, self.max_bytes = max_samples, max_bytes
        self.gzip = compression == "gzip"
        self.level = level
        self.shards = []
        self._file = self._tar = self._out = self._gz = None
        self._samples = 0

    def _open(self):
        name = "%s-%05d.tar%s" % (self.key, len(self.shards),
                                  ".gz" if self.gzip else "")
        self._final = os.path.join(self.folder, name)
        self._temp = temp_name(self._final)
        self._file = open(self._temp, "wb")
        self._out = _Hashing(self._file)
        self._tar = self._out
        if self.gzip:
            self._gz = self._tar = gzip.GzipFile(
                filename="", mode="wb", fileobj=self._out,
                compresslevel=self.level, mtime=0)
        self._offset = self._samples = 0

    def _write(self, data):
        self._tar.write(data)
        self._offset += len(data)

    def _close(self):
        # The end of a tar file as tarfile writes it: two zero blocks,
        # then zeros to a whole record.
        self._write(bytes(2 * _BLOCK))
        self._write(bytes(-self._offset % tarfile.RECORDSIZE))
        if self._gz is not None:
            self._gz.close()
        self._file.close()
        # Renamed once complete, without an fsync (which would make each
        # recording wait for the disk): a shard a machine crash cuts short
        # fails its checksum, and the rerun builds its recording again.
        os.replace(self._temp, self._final)
        self.shards.append({
            "name": os.path.basename(self._final), "samples": self._samples,
            "bytes": self._out.size,
            "sha256": "sha256:" + self._out.hash.hexdigest()})
        self._file = self._tar = self._gz = None

    def add(self, sample_key, members):
        """Adds one sample: `members` maps an extension ("grid.npy") to its
        buffers; the members are named <sample_key>.<extension>, in sorted
        order."""
        if self._tar is not None and (
                self._samples >= self.max_samples
                or _tar_end(self._offset + sample_bytes(members))
                > self.max_bytes):
            self._close()
        if self._tar is None:
            self._open()
        for ext in sorted(members):
            size = _size(members[ext])
            self._write(_tar_header("%s.%s" % (sample_key, ext), size))
            for chunk in members[ext]:
                self._write(chunk)
            self._write(bytes(-size % _BLOCK))
        self._samples += 1

    def finish(self):
        """Completes the last shard; returns `shards`."""
        if self._tar is not None:
            self._close()
        return self.shards

    def abort(self):
        """Removes the shard being written (the complete ones stay, for
        the caller to remove)."""
        if self._file is not None:
            self._file.close()
            os.unlink(self._temp)
            self._file = self._tar = None


def remove_key(folder, key):
    """Removes every shard of `key` in `folder`, complete or partial."""
    pattern = re.compile(r"^\.?%s-\d{5}\.tar(\.gz)?(\.partial-.*)?$"
                         % re.escape(key))
    for name in os.listdir(folder):
        if pattern.match(name):
            os.unlink(os.path.join(folder, name))
