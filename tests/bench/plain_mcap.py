"""A plain-Python reader of ROS 2 MCAP recordings, as a PyTorch user
without robocache would write one (the `mcap` and `mcap-ros2-support`
packages do the same work in pure Python): records parsed with struct,
chunks uncompressed (or zlib-free: only compression "" is read), CDR
messages of sensor_msgs PointCloud2, JointState and Image decoded into
NumPy.  The baseline of the dataset benchmark (python_dataset.py); not
used by robocache itself.  Format: https://mcap.dev/spec."""
import struct

import numpy as np

MAGIC = b"\x89MCAP0\r\n"
OP_SCHEMA, OP_CHANNEL, OP_MESSAGE, OP_CHUNK, OP_DATA_END = 3, 4, 5, 6, 15
_u16, _u32, _u64 = struct.Struct("<H"), struct.Struct("<I"), struct.Struct(
    "<Q")


def _string(buf, pos):
    n = _u32.unpack_from(buf, pos)[0]
    return bytes(buf[pos + 4:pos + 4 + n]).decode(), pos + 4 + n


def _records(buf, pos, end):
    while pos + 9 <= end:
        op = buf[pos]
        length = _u64.unpack_from(buf, pos + 1)[0]
        yield op, pos + 9, pos + 9 + length
        pos += 9 + length


def messages(path):
    """(topic, schema name, log_time ns, CDR bytes) in file order."""
    with open(path, "rb") as f:
        buf = memoryview(f.read())
    if bytes(buf[:8]) != MAGIC:
        raise ValueError("%s is not an MCAP file" % path)
    schemas, channels = {}, {}

    def walk(start, end):
        for op, body, stop in _records(buf, start, end):
            if op == OP_SCHEMA:
                sid = _u16.unpack_from(buf, body)[0]
                schemas[sid], _ = _string(buf, body + 2)
            elif op == OP_CHANNEL:
                cid, sid = struct.unpack_from("<HH", buf, body)
                topic, _ = _string(buf, body + 4)
                channels[cid] = (topic, schemas.get(sid, ""))
            elif op == OP_MESSAGE:
                cid = _u16.unpack_from(buf, body)[0]
                log_time = _u64.unpack_from(buf, body + 6)[0]
                topic, schema = channels[cid]
                yield topic, schema, log_time, buf[body + 22:stop]
            elif op == OP_CHUNK:
                pos = body + 28
                compression, pos = _string(buf, pos)
                if compression:
                    raise ValueError("chunk compression %r: this plain "
                                     "reader takes uncompressed chunks"
                                     % compression)
                size = _u64.unpack_from(buf, pos)[0]
                yield from walk(pos + 8, pos + 8 + size)
            elif op == OP_DATA_END:
                return
    yield from walk(8, len(buf))


class _Cdr:
    """Little-endian CDR (the encapsulation header first); alignment is
    counted from after the header."""

    def __init__(self, data):
        if bytes(data[:2]) != b"\x00\x01":
            raise ValueError("not little-endian CDR")
        self.buf, self.pos = data, 4

    def align(self, n):
        self.pos += (-(self.pos - 4)) % n

    def u8(self):
        self.pos += 1
        return self.buf[self.pos - 1]

    def u32(self):
        self.align(4)
        self.pos += 4
        return _u32.unpack_from(self.buf, self.pos - 4)[0]

    def string(self):
        n = self.u32()
        self.pos += n
        return bytes(self.buf[self.pos - n:self.pos - 1]).decode()

    def stamp(self):
        sec, nsec = struct.unpack_from("<iI", self.buf, self._at(4, 8))
        return sec * 1_000_000_000 + nsec

    def _at(self, align, size):
        self.align(align)
        self.pos += size
        return self.pos - size

    def bytes_seq(self):
        n = self.u32()
        return self.buf[self._at(1, n):self.pos]

    def f64_seq(self):
        n = self.u32()
        return np.frombuffer(self.buf, np.float64, n, self._at(8, 8 * n)
                             if n else self.pos)


def _header(c):
    stamp = c.stamp()
    c.string()
    return stamp


_POINT_TYPES = {1: np.int8, 2: np.uint8, 3: np.int16, 4: np.uint16,
                5: np.int32, 6: np.uint32, 7: np.float32, 8: np.float64}


def point_cloud(data):
    """sensor_msgs/PointCloud2 -> (stamp ns, (N, 3) float32 x, y, z)."""
    c = _Cdr(data)
    stamp = _header(c)
    height, width = c.u32(), c.u32()
    fields = {}
    for _ in range(c.u32()):
        name = c.string()
        offset = c.u32()
        datatype = c.u8()
        c.u32()
        fields[name] = (offset, _POINT_TYPES[datatype])
    c.u8()
    step = c.u32()
    c.u32()
    raw = np.frombuffer(c.bytes_seq(), np.uint8).reshape(height * width,
                                                           step)
    xyz = np.empty((height * width, 3), np.float32)
    for i, axis in enumerate("xyz"):
        offset, dtype = fields[axis]
        size = np.dtype(dtype).itemsize
        xyz[:, i] = raw[:, offset:offset + size].copy().view(dtype)[:, 0]
    return stamp, xyz


def joint_state(data):
    """sensor_msgs/JointState -> (stamp ns, positions float64)."""
    c = _Cdr(data)
    stamp = _header(c)
    for _ in range(c.u32()):
        c.string()
    return stamp, c.f64_seq().copy()


def image(data):
    """sensor_msgs/Image (8-bit encodings) -> (stamp ns, (H, W, C))."""
    c = _Cdr(data)
    stamp = _header(c)
    height, width = c.u32(), c.u32()
    c.string()
    c.u8()
    step = c.u32()
    raw = np.frombuffer(c.bytes_seq(), np.uint8).reshape(height, step)
    channels = step // width
    return stamp, raw[:, :width * channels].reshape(height, width, channels)
