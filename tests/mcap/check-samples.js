#!/usr/bin/env node
// node tests/mcap/check-samples.js DIR
//
// Reads back every FILE of DIR that has a FILE.expected.jsonl beside it
// (as written by write-samples.js) with @mcap/core's stream reader, and
// with its indexed reader too where the file is indexed, decodes the
// messages with @foxglove/rosmsg2-serialization's MessageReader over the
// schema stored in the file, and checks that what comes out equals the
// expected lines: a self-check that the writer and the expectations agree
// before robocache's reader is judged by them.  Exits 1 on any mismatch.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { McapIndexedReader } = require("@mcap/core");
const { MessageReader } = require("@foxglove/rosmsg2-serialization");
const zstd = require("@foxglove/wasm-zstd");
const lib = require("./samples-lib");

// write-samples.js always writes these (lz4.mcap only where the lz4 tool
// is found).
const REQUIRED = [
  "zstd",
  "uncompressed",
  "unchunked",
  "no-index",
  "small-chunks",
  "two-lidars",
  "big-endian",
  "message-zstd",
  "crashed-mid-chunk",
  "crashed-no-summary",
];

const STAMP_BEFORE_LOG_TIME = 3000000n;

class Mismatch extends Error {}

function expect(condition, what) {
  if (!condition) throw new Mismatch(what);
}

// Decodes messages of the supported types into expected lines.
// The decompressed size that a zstd frame's header gives (RFC 8878,
// 3.1.1.1: the frame header descriptor, then the window descriptor unless
// single-segment, the dictionary id, and the content size field).
function frameContentSize(frame) {
  const descriptor = frame[4];
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3];
  const bytes = [singleSegment ? 1 : 0, 2, 4, 8][sizeFlag];
  if (bytes === 0) throw new Mismatch("a zstd frame without its content size");
  let n = 0;
  for (let i = bytes - 1; i >= 0; i--) n = n * 256 + frame[at + i];
  return bytes === 2 ? n + 256 : n;
}

class Decoder {
  // @messageCompression: "zstd" where each message's bytes are one zstd
  // frame (rosbag2's --compression-mode message), else "".
  constructor(messageCompression) {
    this.readers = new Map();
    this.messageCompression = messageCompression;
  }
  line(schema, channel, message) {
    if (!lib.SUPPORTED_TYPES.has(schema.name)) return null;
    if (!this.readers.has(schema.id)) {
      const text = new TextDecoder().decode(schema.data);
      this.readers.set(schema.id, new MessageReader(lib.parseDefinition(text)));
    }
    const data = this.messageCompression === "zstd"
      ? zstd.decompress(message.data, frameContentSize(message.data))
      : message.data;
    const msg = this.readers.get(schema.id).readMessage(data);
    return JSON.stringify(lib.describeMessage(channel.topic, schema.name, message.logTime, msg));
  }
}

function byLogTime(a, b) {
  return a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0;
}

// The lines of @messages (sorted by log_time) and the per-topic list of
// the first expected line.
function linesOf(schemas, channels, messages, messageCompression) {
  const decoder = new Decoder(messageCompression);
  const counts = new Map();
  const lines = [];
  for (const message of [...messages].sort(byLogTime)) {
    const channel = channels.get(message.channelId);
    expect(channel, `message on unknown channel ${message.channelId}`);
    counts.set(channel.id, (counts.get(channel.id) ?? 0) + 1);
    const line = decoder.line(schemas.get(channel.schemaId), channel, message);
    if (line) lines.push(line);
  }
  const topics = [...channels.values()]
    .sort((a, b) => a.id - b.id)
    .map((c) => ({
      topic: c.topic,
      type: schemas.get(c.schemaId).name,
      channel_id: c.id,
      schema_encoding: schemas.get(c.schemaId).encoding,
      message_encoding: c.messageEncoding,
      count: counts.get(c.id) ?? 0,
      supported: lib.SUPPORTED_TYPES.has(schemas.get(c.schemaId).name),
    }));
  return { lines, topics };
}

function compareLines(reader, got, want) {
  const n = Math.min(got.length, want.length);
  for (let i = 0; i < n; i++) {
    expect(got[i] === want[i], `${reader}: line ${i + 2} differs:\n  got  ${got[i]}\n  want ${want[i]}`);
  }
  expect(got.length === want.length, `${reader}: ${got.length} message lines, want ${want.length}`);
}

function checkStream(bytes, header, want, handlers) {
  const { records, done, bytesRemaining } = lib.streamRecords(bytes, handlers, true);
  const schemas = new Map();
  const channels = new Map();
  const messages = [];
  const compressions = new Set();
  let messageIndexes = 0;
  let footer = null;
  for (const r of records) {
    if (r.type === "Header") expect(r.profile === "ros2", `profile "${r.profile}"`);
    else if (r.type === "Schema") schemas.set(r.id, r);
    else if (r.type === "Channel") channels.set(r.id, r);
    else if (r.type === "Message") messages.push(r);
    else if (r.type === "Chunk") compressions.add(r.compression);
    else if (r.type === "MessageIndex") messageIndexes++;
    else if (r.type === "Footer") footer = r;
  }
  expect(bytes.length === header.file_size, `file is ${bytes.length} bytes, header says ${header.file_size}`);
  expect(done === !header.truncated, `stream reader done: ${done}, truncated: ${header.truncated}`);
  expect(bytes.length - bytesRemaining === header.readable_end,
    `stream reader stops at ${bytes.length - bytesRemaining}, readable_end ${header.readable_end}`);
  expect(header.chunked === compressions.size > 0, `chunks found: ${compressions.size > 0}`);
  if (header.chunked) {
    expect([...compressions].join() === header.compression, `chunk compression ${[...compressions]}`);
  }
  if (!header.truncated) {
    expect((messageIndexes > 0) === header.indexed, `${messageIndexes} message index records`);
    expect((footer.summaryStart !== 0n) === header.summary, `summary start ${footer.summaryStart}`);
  }
  const { lines, topics } = linesOf(schemas, channels, messages, header.message_compression);
  expect(messages.length === header.message_count, `${messages.length} messages, want ${header.message_count}`);
  expect(JSON.stringify(topics) === JSON.stringify(header.topics),
    `topics differ:\n  got  ${JSON.stringify(topics)}\n  want ${JSON.stringify(header.topics)}`);
  compareLines("stream reader", lines, want);
  return { chunks: records.filter((r) => r.type === "Chunk").length, decoded: lines.length };
}

async function checkIndexed(file, header, want, handlers) {
  const fd = fs.openSync(file, "r");
  try {
    const reader = await McapIndexedReader.Initialize({ readable: lib.fileReadable(fd), decompressHandlers: handlers });
    const messages = [];
    for await (const message of reader.readMessages()) messages.push(message);
    const { lines, topics } = linesOf(reader.schemasById, reader.channelsById, messages,
      header.message_compression);
    expect(JSON.stringify(topics) === JSON.stringify(header.topics), "indexed reader: topics differ");
    for (const t of header.topics) {
      const stored = reader.statistics?.channelMessageCounts.get(t.channel_id);
      expect(stored === BigInt(t.count), `statistics: ${stored} messages on ${t.topic}, want ${t.count}`);
    }
    compareLines("indexed reader", lines, want);
  } finally {
    fs.closeSync(fd);
  }
}

// What the robocache tests rely on, whatever the readers say: stamps 3 ms
// before log_time, but /points' 80 ms in stamp-lag.mcap, whose earliest
// stamp must then not be its first message's.
function checkExpectations(file, want) {
  const lagged = path.basename(file) === "stamp-lag.mcap";
  const lines = want.map((text) => JSON.parse(text));
  for (const line of lines) {
    const lag = lagged && line.topic === "/points" ? 80n * 1000000n : STAMP_BEFORE_LOG_TIME;
    expect(BigInt(line.log_time) - BigInt(line.stamp) === lag,
      `${line.topic} at ${line.log_time}: stamp is not log_time - ${lag / 1000000n} ms`);
  }
  if (lagged) {
    const earliest = lines.reduce((m, l) => (BigInt(l.stamp) < m ? BigInt(l.stamp) : m), BigInt(lines[0].stamp));
    expect(earliest < BigInt(lines[0].stamp), "stamp-lag.mcap: the first message has the earliest stamp");
  }
}

async function checkFile(file, handlers) {
  const [first, ...want] = fs.readFileSync(file + ".expected.jsonl", "utf8").trimEnd().split("\n");
  const header = JSON.parse(first);
  checkExpectations(file, want);
  const { chunks, decoded } = checkStream(fs.readFileSync(file), header, want, handlers);
  if (header.indexed) await checkIndexed(file, header, want, handlers);
  const how = header.indexed ? "stream and indexed readers" : "stream reader";
  return `${header.message_count} messages, ${decoded} decoded, ${chunks} chunks, ${how}`;
}

async function main() {
  const dir = process.argv[2];
  if (!dir) throw new Error("usage: check-samples.js DIR");
  const handlers = await lib.loadDecompressHandlers();
  const files = fs.readdirSync(dir)
    .filter((name) => name.endsWith(".mcap.expected.jsonl"))
    .map((name) => path.join(dir, name.slice(0, -".expected.jsonl".length)))
    .sort();
  let failed = 0;
  for (const name of REQUIRED) {
    if (!files.includes(path.join(dir, name + ".mcap"))) {
      console.log(`FAIL ${name}.mcap: missing`);
      failed++;
    }
  }
  for (const file of files) {
    try {
      console.log(`ok   ${path.basename(file)}: ${await checkFile(file, handlers)}`);
    } catch (error) {
      console.log(`FAIL ${path.basename(file)}: ${error instanceof Mismatch ? error.message : error.stack}`);
      failed++;
    }
  }
  if (failed) {
    console.log(`check-samples: ${failed} file(s) wrong or missing`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(`check-samples: ${error.stack ?? error}`);
  process.exit(1);
});
