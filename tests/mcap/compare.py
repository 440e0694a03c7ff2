#!/usr/bin/env python3
"""compare.py EXPECTED.jsonl GOT.jsonl: robocache's decoding of an MCAP
file (tests/formats/rosdump.c) against what the third-party writer put in
it (write-samples.js).  Every message of a played type must be there, in
log-time order, with every value equal; the topics with their types and
counts too, and a cut-off file must say it was recovered.  Exit 1 with the
first differences."""
import json
import sys

MESSAGE_KEYS = ("topic", "log_time", "stamp", "frame_id", "height", "width",
                "point_step", "row_step", "is_dense", "fields", "encoding",
                "step", "data_sha256", "data_length", "name", "position",
                "velocity", "effort")


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def compare_head(want, got, problems):
    topics = {t["name"]: t for t in got["topics"]}
    for t in want["topics"]:
        mine = topics.get(t["topic"])
        if mine is None:
            problems.append(f"topic {t['topic']} missing")
        elif (mine["type"], mine["messages"]) != (t["type"], t["count"]):
            problems.append(f"topic {t['topic']}: {mine['type']} x "
                            f"{mine['messages']}, expected {t['type']} x "
                            f"{t['count']}")
    if len(topics) != len(want["topics"]):
        problems.append(f"{len(topics)} topics, expected "
                        f"{len(want['topics'])}")
    scanned = not want["summary"] or want["truncated"]
    if want["truncated"] and not got["recovered"]:
        problems.append("a cut-off file not reported as recovered")
    if got["recovered"] and not scanned:
        problems.append("a whole indexed file reported as recovered")


def main():
    want, got = load(sys.argv[1]), load(sys.argv[2])
    problems = []
    compare_head(want[0], got[0], problems)
    if len(want) != len(got):
        problems.append(f"{len(got) - 1} messages, expected {len(want) - 1}")
    for i, (w, g) in enumerate(zip(want[1:], got[1:])):
        for key in MESSAGE_KEYS:
            if key in w and w[key] != g.get(key):
                problems.append(f"message {i} ({w['topic']}) {key}: "
                                f"{g.get(key)!r}, expected {w[key]!r}")
        if len(problems) > 10:
            break
    for p in problems[:10]:
        print(f"{sys.argv[2]}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
