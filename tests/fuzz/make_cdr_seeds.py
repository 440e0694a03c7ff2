#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_cdr.c into a folder: CDR
messages of PointCloud2, JointState and Image in both byte orders (with
the builtin definitions, i.e. an empty schema), and a schema of nested,
fixed, bounded and misaligned fields with a message of it.  Deterministic
(a fixed seed), so that the corpus in tests/fuzz/corpus-cdr/ can be made
again:  python3 tests/fuzz/make_cdr_seeds.py tests/fuzz/corpus-cdr"""
import os
import random
import struct
import sys

TYPES = {"cloud": 0, "joints": 1, "image": 2, "other": 3}


class Cdr:
    """XCDR1: primitives aligned to their size after the 4-byte header."""

    def __init__(self, big_endian):
        self.order = ">" if big_endian else "<"
        self.out = bytearray(b"\x00\x00" if big_endian else b"\x00\x01")
        self.out += b"\x00\x00"

    def put(self, fmt, value):
        size = struct.calcsize(fmt)
        while (len(self.out) - 4) % size:
            self.out.append(0)
        self.out += struct.pack(self.order + fmt, value)

    def string(self, text):
        self.put("I", len(text) + 1)
        self.out += text.encode() + b"\x00"

    def seq(self, fmt, values):
        self.put("I", len(values))
        for v in values:
            self.put(fmt, v)


def header(c, rng):
    c.put("i", rng.randrange(0, 2**31))
    c.put("I", rng.randrange(0, 10**9))
    c.string("frame%d" % rng.randrange(100))


def cloud(c, rng):
    header(c, rng)
    c.put("I", 1)
    c.put("I", 4)
    names = ["x", "y", "z", "intensity"]
    c.put("I", len(names))
    for i, name in enumerate(names):
        c.string(name)
        c.put("I", 4 * i)
        c.put("B", 7)
        c.put("I", 1)
    c.put("B", 0)
    c.put("I", 16)
    c.put("I", 64)
    c.seq("B", [rng.randrange(256) for _ in range(64)])
    c.put("B", 1)


def joints(c, rng):
    header(c, rng)
    c.put("I", 3)
    for i in range(3):
        c.string("joint%d" % i)
    for _ in range(3):
        c.seq("d", [rng.uniform(-3, 3) for _ in range(3)])


def image(c, rng):
    header(c, rng)
    c.put("I", 2)
    c.put("I", 3)
    c.string("rgb8")
    c.put("B", 0)
    c.put("I", 9)
    c.seq("B", [rng.randrange(256) for _ in range(18)])


OTHER_SCHEMA = """uint8 a
float64 b
string<=8 s
int16[3] t
float32[<=4] f
Inner[2] inners
std_msgs/Empty e
string[] notes
===
MSG: fuzz_msgs/Inner
char c
int64 big
===
MSG: std_msgs/msg/Empty
"""


def other(c, rng):
    c.put("B", rng.randrange(256))
    c.put("d", rng.random())
    c.string("abc")
    for _ in range(3):
        c.put("h", rng.randrange(-100, 100))
    c.seq("f", [rng.random() for _ in range(2)])
    for _ in range(2):
        c.put("B", 65)
        c.put("q", rng.randrange(-2**40, 2**40))
    c.put("B", 0)
    c.put("I", 2)
    c.string("")
    c.string("seven77")


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(15)
    for name, write in (("cloud", cloud), ("joints", joints),
                        ("image", image), ("other", other)):
        schema = OTHER_SCHEMA.encode() if name == "other" else b""
        for big_endian in (False, True):
            c = Cdr(big_endian)
            write(c, rng)
            seed = struct.pack("<HB", len(schema), TYPES[name]) + schema
            seed += bytes(c.out)
            path = os.path.join(folder, "%s-%s" % (
                name, "be" if big_endian else "le"))
            with open(path, "wb") as f:
                f.write(seed)


if __name__ == "__main__":
    main()
