// The content of the sample files: topics, when each message is logged,
// and each message's seeded pseudo-random fields.  Every message has its
// own generator seeded from (seed, topic, index), so a message is the same
// whichever file it is written to and in whatever order it is made.
"use strict";

// xorshift32 over a seed mixed from the arguments (never a zero state).
class Rng {
  constructor(...parts) {
    let h = 0x9e3779b9;
    for (const part of parts) {
      h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
      h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
      h ^= h >>> 16;
    }
    this.state = h >>> 0 || 1;
  }
  u32() {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }
  float() {
    return this.u32() / 4294967296;
  }
  below(n) {
    return Math.floor(this.float() * n);
  }
  fill(bytes) {
    const whole = bytes.length - (bytes.length % 4);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < whole; i += 4) view.setUint32(i, this.u32());
    for (let i = whole; i < bytes.length; i++) bytes[i] = this.u32() & 0xff;
  }
}

function topicHash(name) {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const PC2 = "sensor_msgs/msg/PointCloud2";
const IMAGE = "sensor_msgs/msg/Image";
const FLOAT32 = 7;
const FLOAT64 = 8;
const UINT16 = 4;

// Velodyne-like: gaps at 12..15, 22..23 and 28..31 of the 32-byte point.
const LAYOUT_FLAT = {
  rings: 16,
  rowPad: 0,
  fields: [
    { name: "x", offset: 0, datatype: FLOAT32, count: 1 },
    { name: "y", offset: 4, datatype: FLOAT32, count: 1 },
    { name: "z", offset: 8, datatype: FLOAT32, count: 1 },
    { name: "intensity", offset: 16, datatype: FLOAT32, count: 1 },
    { name: "ring", offset: 20, datatype: UINT16, count: 1 },
    { name: "time", offset: 24, datatype: FLOAT32, count: 1 },
  ],
};

// Ouster-like organized rows (one per ring) with 24 bytes after each row
// and a float64 time.
const LAYOUT_ORGANIZED = {
  rings: 16,
  rowPad: 24,
  fields: [
    { name: "x", offset: 0, datatype: FLOAT32, count: 1 },
    { name: "y", offset: 4, datatype: FLOAT32, count: 1 },
    { name: "z", offset: 8, datatype: FLOAT32, count: 1 },
    { name: "intensity", offset: 12, datatype: FLOAT32, count: 1 },
    { name: "ring", offset: 16, datatype: UINT16, count: 1 },
    { name: "time", offset: 24, datatype: FLOAT64, count: 1 },
  ],
};

const POINT_STEP = 32;

// @randomGaps: fill the bytes between fields with random bytes (to catch
// a reader that reads them); else zeros, as drivers leave them.
function makeCloud(rng, header, layout, width, height, randomGaps = true) {
  const rowStep = width * POINT_STEP + layout.rowPad;
  const data = new Uint8Array(rowStep * height);
  if (randomGaps) rng.fill(data);
  const view = new DataView(data.buffer);
  const at = Object.fromEntries(layout.fields.map((f) => [f.name, f.offset]));
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const ring = height > 1 ? row : col % layout.rings;
      const p = row * rowStep + col * POINT_STEP;
      const azimuth = (2 * Math.PI * col) / width;
      const elevation = ((ring - layout.rings / 2) * 2 * Math.PI) / 180;
      const range = 1 + 40 * rng.float();
      // Some points without a return; the second of each cloud always.
      const missing = rng.float() < 0.03 || (row === 0 && col === 1);
      const r = missing ? NaN : range;
      view.setFloat32(p + at.x, r * Math.cos(elevation) * Math.cos(azimuth), true);
      view.setFloat32(p + at.y, r * Math.cos(elevation) * Math.sin(azimuth), true);
      view.setFloat32(p + at.z, r * Math.sin(elevation), true);
      view.setFloat32(p + at.intensity, rng.below(256), true);
      view.setUint16(p + at.ring, ring, true);
      const time = (0.1 * col) / width;
      if (layout.fields[5].datatype === FLOAT64) view.setFloat64(p + at.time, time, true);
      else view.setFloat32(p + at.time, time, true);
    }
  }
  return {
    header,
    height,
    width,
    fields: layout.fields,
    is_bigendian: false,
    point_step: POINT_STEP,
    row_step: rowStep,
    data,
    is_dense: false,
  };
}

const JOINTS = [
  "shoulder_pan_joint",
  "shoulder_lift_joint",
  "elbow_joint",
  "wrist_1_joint",
  "wrist_2_joint",
  "wrist_3_joint",
];

function makeJointState(rng, header, index) {
  const t = index * 0.01;
  const wave = (j, phase) => Math.sin(2 * Math.PI * (0.2 + 0.1 * j) * t + phase);
  return {
    header,
    name: JOINTS,
    position: JOINTS.map((_, j) => 1.5 * wave(j, j) + 1e-3 * (rng.float() - 0.5)),
    velocity: JOINTS.map((_, j) => 0.8 * wave(j, j + 1.5) + 1e-3 * (rng.float() - 0.5)),
    effort: JOINTS.map(() => 40 * (rng.float() - 0.5)),
  };
}

const BYTES_PER_PIXEL = { rgb8: 3, bgr8: 3, mono8: 1, mono16: 2 };

function makeImage(rng, header, encoding, rowPad) {
  const width = 64;
  const height = 48;
  const step = width * BYTES_PER_PIXEL[encoding] + rowPad;
  const data = new Uint8Array(step * height);
  rng.fill(data);
  return { header, height, width, encoding, is_bigendian: 0, step, data };
}

function makePose(rng, header) {
  const q = [rng.float() - 0.5, rng.float() - 0.5, rng.float() - 0.5, rng.float() + 0.5];
  const norm = Math.hypot(...q);
  return {
    header,
    pose: {
      position: { x: 10 * rng.float(), y: 10 * rng.float(), z: rng.float() },
      orientation: { x: q[0] / norm, y: q[1] / norm, z: q[2] / norm, w: q[3] / norm },
    },
  };
}

function topic(name, type, periodMs, frame, make) {
  return { topic: name, type, periodMs, frame, make };
}

function baseTopics(cloudWidth, randomGaps) {
  return [
    topic("/points", PC2, 100, "velodyne", (rng, h) =>
      makeCloud(rng, h, LAYOUT_FLAT, cloudWidth, 1, randomGaps),
    ),
    topic("/joint_states", "sensor_msgs/msg/JointState", 10, "base_link", (rng, h, i) =>
      makeJointState(rng, h, i),
    ),
    topic("/camera/image_raw", IMAGE, 200, "camera_optical", (rng, h) =>
      makeImage(rng, h, "rgb8", 0),
    ),
    topic("/camera/bgr/image_raw", IMAGE, 200, "camera_optical", (rng, h) =>
      makeImage(rng, h, "bgr8", 8),
    ),
    topic("/camera/mono/image_raw", IMAGE, 200, "camera_optical", (rng, h) =>
      makeImage(rng, h, "mono8", 0),
    ),
    topic("/camera/ir/image_raw", IMAGE, 200, "camera_ir_optical", (rng, h) =>
      makeImage(rng, h, "mono16", 0),
    ),
    topic("/chatter", "std_msgs/msg/String", 500, "", (rng, h, i) => ({
      data: `hello robocache ${i} ${rng.u32()}`,
    })),
    topic("/pose", "geometry_msgs/msg/PoseStamped", 50, "map", (rng, h) => makePose(rng, h)),
  ];
}

// 4096 points a sweep: 128 KiB clouds, so that 2 s fill three 1 MiB chunks.
function smallTopics() {
  return baseTopics(4096, true);
}

// For speed: zeros between fields compress as in real recordings.
function largeTopics() {
  return baseTopics(131072, false);
}

const OUSTER_TOPIC = topic("/ouster/points", PC2, 100, "os_sensor", (rng, h) =>
  makeCloud(rng, h, LAYOUT_ORGANIZED, 256, 16),
);

const MS = 1000000n;

// Every message of @topics over @seconds, in log_time order: period plus a
// random delay of up to 2 ms, all times distinct; a topic's offsetMs, if
// any, starts it that much later.
function schedule(seed, topics, seconds) {
  const start = 1700000000n * 1000n * MS + BigInt(seed % 100000) * MS;
  const events = [];
  for (const t of topics) {
    const rng = new Rng(seed, topicHash(t.topic), 0xffffffff);
    const phase = BigInt(rng.below(20000000));
    const n = Math.round((seconds * 1000) / t.periodMs);
    for (let index = 0; index < n; index++) {
      const delay = BigInt(rng.below(2000000));
      const logTime =
        start + BigInt(t.offsetMs ?? 0) * MS + phase + BigInt(index * t.periodMs) * MS + delay;
      events.push({ topic: t, index, logTime });
    }
  }
  events.sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0));
  for (let i = 1; i < events.length; i++) {
    if (events[i].logTime <= events[i - 1].logTime) events[i].logTime = events[i - 1].logTime + 1n;
  }
  return events;
}

// header.stamp is log_time - 3 ms, or less the topic's stampLagMs.
function makeMessage(seed, event) {
  const rng = new Rng(seed, topicHash(event.topic.topic), event.index);
  const stamp = event.logTime - BigInt(event.topic.stampLagMs ?? 3) * MS;
  const header = {
    stamp: { sec: Number(stamp / 1000000000n), nanosec: Number(stamp % 1000000000n) },
    frame_id: event.topic.frame,
  };
  return event.topic.make(rng, header, event.index);
}

// What rosbag2 stores in each channel's metadata (a reliable, volatile
// subscription with default deadline, lifespan and lease).
const INFINITE = "    sec: 9223372036\n    nsec: 854775807\n";
const QOS_YAML =
  "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n" +
  "  deadline:\n" + INFINITE + "  lifespan:\n" + INFINITE +
  "  liveliness: 1\n  liveliness_lease_duration:\n" + INFINITE +
  "  avoid_ros_namespace_conventions: false\n";

module.exports = { schedule, makeMessage, smallTopics, largeTopics, OUSTER_TOPIC, QOS_YAML };
