// Writes MCAP files with @mcap/core's McapWriter for tests/formats/mcap.c:
// <dir>/<name>.mcap and <dir>/<name>.txt, the messages in log-time order
// (file order among equal times), one "time topic hex" line each.  Random
// payloads (first byte never 0) and times on a 1 us grid, so some tie.
// Usage: node write_mcap.js <dir>
const { McapWriter, TempBuffer } = require("@mcap/core");
const zstd = require("@foxglove/wasm-zstd");
const fs = require("fs");

const dir = process.argv[2];
const layouts = [
  ["js-zstd", {
    chunkSize: 2000,
    compressChunk: (data) => ({
      compression: "zstd", compressedData: zstd.compress(data, 3),
    }),
  }],
  ["js-none", { chunkSize: 1500 }],
  ["js-unchunked", { useChunks: false }],
];

function randomPayload() {
  const data = new Uint8Array(1 + Math.floor(Math.random() * 200));
  for (let k = 0; k < data.length; k++)
    data[k] = Math.floor(Math.random() * 256);
  data[0] = 1 + Math.floor(Math.random() * 255);
  return data;
}

async function write(name, options) {
  const buffer = new TempBuffer();
  const writer = new McapWriter({ writable: buffer, ...options });
  await writer.start({ profile: "ros2", library: "robocache test" });
  const schema = await writer.registerSchema({
    name: "sensor_msgs/msg/JointState", encoding: "ros2msg",
    data: new TextEncoder().encode("string[] name\n"),
  });
  const topics = new Map();
  for (const topic of ["/joints", "/joints2"]) {
    const id = await writer.registerChannel({
      topic, schemaId: schema, messageEncoding: "cdr", metadata: new Map(),
    });
    topics.set(id, topic);
  }
  const ids = [...topics.keys()];
  const lines = [];
  for (let i = 0; i < 100; i++) {
    const data = randomPayload();
    const time = 1000000000n + BigInt(Math.floor(Math.random() * 300)) * 1000n;
    const channelId = ids[i % 3 == 0 ? 1 : 0];
    await writer.addMessage({
      channelId, sequence: i, logTime: time, publishTime: time, data,
    });
    lines.push([time, topics.get(channelId), Buffer.from(data).toString("hex")]);
  }
  await writer.end();
  fs.writeFileSync(`${dir}/${name}.mcap`, buffer.get());
  // Array.prototype.sort is stable: file order among equal times.
  lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  fs.writeFileSync(`${dir}/${name}.txt`,
    lines.map((l) => l.join(" ")).join("\n") + "\n");
}

async function main() {
  await zstd.isLoaded;
  for (const [name, options] of layouts)
    await write(name, options);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
