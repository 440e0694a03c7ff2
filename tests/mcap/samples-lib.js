// What write-samples.js and check-samples.js share: the ROS 2 message
// definitions as rosbag2 stores them in MCAP, the summary of a decoded
// message that the .expected.jsonl files hold, and the chunk codecs.
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const { parse } = require("@foxglove/rosmsg");

// rosbag2 stores a type's .msg text, then each type it uses after a line
// of 80 '=' and "MSG: pkg/Name".  Real files keep the .msg comments, blank
// lines and aligned columns, so these texts have some (written for these
// tests, not copied from ROS).
const SEPARATOR = "=".repeat(80) + "\n";

function dependency(name, text) {
  return SEPARATOR + "MSG: " + name + "\n" + text;
}

const HEADER_DEPENDENCIES =
  dependency(
    "std_msgs/Header",
    "# When and where the data was taken.\n" +
      "builtin_interfaces/Time stamp\n" +
      "\n" +
      "# The coordinate frame of the data.\n" +
      "string frame_id\n",
  ) +
  dependency(
    "builtin_interfaces/Time",
    "# Seconds and nanoseconds since the epoch.\n" + "int32 sec\n" + "uint32 nanosec\n",
  );

const DEFINITIONS = {
  "sensor_msgs/msg/PointCloud2":
    "# Points packed in a byte array; fields say where each value lies.\n" +
    "std_msgs/Header header\n" +
    "\n" +
    "# Height 1 for an unordered cloud, else rows of width points.\n" +
    "uint32 height\n" +
    "uint32 width\n" +
    "\n" +
    "PointField[] fields\n" +
    "\n" +
    "bool    is_bigendian\n" +
    "uint32  point_step   # bytes from one point to the next\n" +
    "uint32  row_step     # bytes from one row to the next\n" +
    "uint8[] data\n" +
    "\n" +
    "bool is_dense        # false when some points are invalid\n" +
    HEADER_DEPENDENCIES +
    dependency(
      "sensor_msgs/PointField",
      "# The datatype codes.\n" +
        "uint8 INT8    = 1\n" +
        "uint8 UINT8   = 2\n" +
        "uint8 INT16   = 3\n" +
        "uint8 UINT16  = 4\n" +
        "uint8 INT32   = 5\n" +
        "uint8 UINT32  = 6\n" +
        "uint8 FLOAT32 = 7\n" +
        "uint8 FLOAT64 = 8\n" +
        "\n" +
        "string name      # e.g. x, intensity\n" +
        "uint32 offset    # from the start of the point\n" +
        "uint8  datatype  # one of the codes above\n" +
        "uint32 count     # values in the field\n",
    ),
  "sensor_msgs/msg/JointState":
    "# The state of named joints; the arrays are empty or match name.\n" +
    "std_msgs/Header header\n" +
    "\n" +
    "string[] name\n" +
    "float64[] position  # rad or m\n" +
    "float64[] velocity  # rad/s or m/s\n" +
    "float64[] effort    # Nm or N\n" +
    HEADER_DEPENDENCIES,
  "sensor_msgs/msg/Image":
    "# An uncompressed image, rows top to bottom.\n" +
    "std_msgs/Header header\n" +
    "\n" +
    "uint32 height\n" +
    "uint32 width\n" +
    "\n" +
    "# Pixel layout, e.g. rgb8, mono16.\n" +
    "string encoding\n" +
    "\n" +
    "uint8 is_bigendian\n" +
    "uint32 step         # bytes per row, padding included\n" +
    "uint8[] data        # step * height bytes\n" +
    HEADER_DEPENDENCIES,
  // Types robocache does not play: a reader must list and skip them.
  "std_msgs/msg/String": "# A text message.\nstring data\n",
  "geometry_msgs/msg/PoseStamped":
    "# A pose in a frame at a time.\n" +
    "std_msgs/Header header\n" +
    "Pose pose\n" +
    HEADER_DEPENDENCIES +
    dependency("geometry_msgs/Pose", "Point position\nQuaternion orientation\n") +
    dependency("geometry_msgs/Point", "float64 x\nfloat64 y\nfloat64 z\n") +
    // ROS 2 default values, which a ros2msg parser must accept.
    dependency(
      "geometry_msgs/Quaternion",
      "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
    ),
};

const SUPPORTED_TYPES = new Set([
  "sensor_msgs/msg/PointCloud2",
  "sensor_msgs/msg/JointState",
  "sensor_msgs/msg/Image",
]);

function parseDefinition(text) {
  return parse(text, { ros2: true });
}

function sha256(bytes) {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

function stampNs(stamp) {
  return BigInt(stamp.sec) * 1000000000n + BigInt(stamp.nanosec);
}

// The .expected.jsonl line of one message of a supported type (null for
// other types).  Keys in a fixed order so that lines compare as strings.
function describeMessage(topic, type, logTime, msg) {
  if (!SUPPORTED_TYPES.has(type)) return null;
  const line = {
    topic,
    log_time: logTime.toString(),
    stamp: stampNs(msg.header.stamp).toString(),
    frame_id: msg.header.frame_id,
  };
  if (type === "sensor_msgs/msg/PointCloud2") {
    Object.assign(line, {
      height: msg.height,
      width: msg.width,
      point_step: msg.point_step,
      row_step: msg.row_step,
      is_dense: msg.is_dense,
      fields: msg.fields.map((f) => ({
        name: f.name,
        offset: f.offset,
        datatype: f.datatype,
        count: f.count,
      })),
      data_sha256: sha256(msg.data),
      data_length: msg.data.length,
    });
  } else if (type === "sensor_msgs/msg/JointState") {
    Object.assign(line, {
      name: Array.from(msg.name),
      position: Array.from(msg.position),
      velocity: Array.from(msg.velocity),
      effort: Array.from(msg.effort),
    });
  } else {
    Object.assign(line, {
      height: msg.height,
      width: msg.width,
      encoding: msg.encoding,
      step: msg.step,
      data_sha256: sha256(msg.data),
      data_length: msg.data.length,
    });
  }
  return line;
}

// Chunk decompression for @mcap/core's readers.
async function loadDecompressHandlers() {
  const zstd = require("@foxglove/wasm-zstd");
  const lz4 = require("@foxglove/wasm-lz4");
  await zstd.isLoaded;
  await lz4.isLoaded;
  return {
    zstd: (data, size) => zstd.decompress(data, Number(size)),
    lz4: (data, size) => lz4(data, Number(size)),
  };
}

// @mcap/core's random-access reader interface over an open file.
function fileReadable(fd) {
  return {
    size: async () => BigInt(fs.fstatSync(fd).size),
    read: async (offset, size) => {
      const buffer = new Uint8Array(Number(size));
      let done = 0;
      while (done < buffer.length) {
        const n = fs.readSync(fd, buffer, done, buffer.length - done, Number(offset) + done);
        if (n === 0) throw new Error(`short read at ${Number(offset) + done}`);
        done += n;
      }
      return buffer;
    },
  };
}

module.exports = {
  DEFINITIONS,
  SUPPORTED_TYPES,
  parseDefinition,
  describeMessage,
  loadDecompressHandlers,
  fileReadable,
  sha256,
};

// Every record @mcap/core's stream reader yields from @bytes, and where it
// stopped: done is true only after a valid footer; bytesRemaining are the
// bytes of a record cut off at the end of a truncated file.
// With @includeChunks the Chunk records come too, before their content.
function streamRecords(bytes, decompressHandlers, includeChunks = false) {
  const { McapStreamReader } = require("@mcap/core");
  const reader = new McapStreamReader({ decompressHandlers, includeChunks });
  reader.append(bytes);
  const records = [];
  for (let record; (record = reader.nextRecord()); ) records.push(record);
  return { records, done: reader.done(), bytesRemaining: reader.bytesRemaining() };
}

module.exports.streamRecords = streamRecords;
