#!/usr/bin/env node
// Dumps an MCAP file of ROS 2 (CDR) messages with third-party readers:
// @mcap/core for the container (McapIndexedReader; McapStreamReader, a
// scan, when the file has no index) and @foxglove/rosmsg2-serialization
// over schemas parsed by @foxglove/rosmsg for the messages.
//
//   node tests/mcap/dump.js FILE.mcap           JSON lines (below)
//   node tests/mcap/dump.js --bench FILE.mcap   speed of reading+decoding
//
// Output: first {"profile", "library", "indexed", "channels": [...],
// "statistics": {...} or null}, then per message {"topic", "log_time",
// "publish_time", "msg", "sequence"} in log-time order (file order when
// scanned).
// Typed arrays of numbers become {"length", "sha256" (hex of their bytes),
// "first": up to 8 values}; bigints are decimal strings; everything else
// is plain JSON.  Other robocache tests parse this format: keep it.
"use strict";

const fs = require("fs");
const crypto = require("crypto");
const { McapIndexedReader, McapStreamReader } = require("@mcap/core");
const { parse } = require("@foxglove/rosmsg");
const { MessageReader } = require("@foxglove/rosmsg2-serialization");
const zstd = require("@foxglove/wasm-zstd");
const lz4 = require("@foxglove/wasm-lz4");

const decompressHandlers = {
  zstd: (data, size) => zstd.decompress(data, Number(size)),
  lz4: (data, size) => lz4(data, Number(size)),
};

function fileReadable(fd) {
  return {
    size: async () => BigInt(fs.fstatSync(fd).size),
    read: async (offset, size) => {
      const buf = Buffer.alloc(Number(size));
      let done = 0;
      while (done < buf.length) {
        const n = fs.readSync(fd, buf, done, buf.length - done,
          Number(offset) + done);
        if (n === 0) throw new Error(`short read at ${offset}`);
        done += n;
      }
      return buf;
    },
  };
}

// Plain JSON for a decoded message.
function plain(value) {
  if (typeof value === "bigint") return value.toString();
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return {
      length: value.length,
      sha256: crypto.createHash("sha256").update(bytes).digest("hex"),
      first: Array.from(value.slice(0, 8), plain),
    };
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = plain(v);
    return out;
  }
  return value;
}

function channelJson(channel, schemas) {
  const schema = schemas.get(channel.schemaId);
  return {
    id: channel.id,
    topic: channel.topic,
    message_encoding: channel.messageEncoding,
    schema_name: schema ? schema.name : null,
    schema_encoding: schema ? schema.encoding : null,
    metadata: Object.fromEntries(channel.metadata),
  };
}

function statisticsJson(s) {
  if (!s) return null;
  return {
    message_count: s.messageCount.toString(),
    schema_count: s.schemaCount,
    channel_count: s.channelCount,
    attachment_count: s.attachmentCount,
    metadata_count: s.metadataCount,
    chunk_count: s.chunkCount,
    message_start_time: s.messageStartTime.toString(),
    message_end_time: s.messageEndTime.toString(),
    channel_message_counts: Object.fromEntries(
      Array.from(s.channelMessageCounts, ([id, n]) => [id, n.toString()])),
  };
}

// Decodes messages by channel, one MessageReader per schema.
function makeDecoder(channels, schemas) {
  const readers = new Map();
  return (message) => {
    const channel = channels.get(message.channelId);
    const schema = channel && schemas.get(channel.schemaId);
    if (!schema || channel.messageEncoding !== "cdr" ||
        schema.encoding !== "ros2msg") return null;
    let reader = readers.get(schema.id);
    if (!reader) {
      const text = new TextDecoder().decode(schema.data);
      reader = new MessageReader(parse(text, { ros2: true }));
      readers.set(schema.id, reader);
    }
    return reader.readMessage(message.data);
  };
}

// The whole file through McapStreamReader: what a scan of a file without
// an index finds.
function scan(path) {
  const reader = new McapStreamReader({ decompressHandlers, validateCrcs: true });
  const out = { header: null, schemas: new Map(), channels: new Map(),
    statistics: null, messages: [] };
  reader.append(fs.readFileSync(path));
  for (let r; (r = reader.nextRecord()) !== undefined;) {
    if (r.type === "Header") out.header = r;
    else if (r.type === "Schema") out.schemas.set(r.id, r);
    else if (r.type === "Channel") out.channels.set(r.id, r);
    else if (r.type === "Statistics") out.statistics = r;
    else if (r.type === "Message") out.messages.push(r);
  }
  return out;
}

async function open(path) {
  const fd = fs.openSync(path, "r");
  try {
    const reader = await McapIndexedReader.Initialize({
      readable: fileReadable(fd), decompressHandlers });
    return { indexed: true, fd, reader, header: reader.header,
      schemas: reader.schemasById, channels: reader.channelsById,
      statistics: reader.statistics };
  } catch (err) {
    fs.closeSync(fd);
    process.stderr.write(`dump.js: ${path} has no usable index ` +
      `(${err.message}): scanning it with McapStreamReader\n`);
    const s = scan(path);
    return { indexed: false, header: s.header, schemas: s.schemas,
      channels: s.channels, statistics: s.statistics, messages: s.messages };
  }
}

async function* messagesOf(file) {
  if (file.indexed) yield* file.reader.readMessages({ validateCrcs: true });
  else yield* file.messages;
}

async function dump(path) {
  const file = await open(path);
  const decode = makeDecoder(file.channels, file.schemas);
  const write = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
  write({
    profile: file.header ? file.header.profile : null,
    library: file.header ? file.header.library : null,
    indexed: file.indexed,
    channels: Array.from(file.channels.values(),
      (c) => channelJson(c, file.schemas)),
    statistics: statisticsJson(file.statistics),
  });
  for await (const m of messagesOf(file)) {
    const channel = file.channels.get(m.channelId);
    write({
      topic: channel ? channel.topic : null,
      log_time: m.logTime.toString(),
      publish_time: m.publishTime.toString(),
      msg: plain(decode(m)),
      sequence: m.sequence,
    });
  }
  if (file.fd !== undefined) fs.closeSync(file.fd);
}

async function bench(path) {
  const start = process.hrtime.bigint();
  const file = await open(path);
  const decode = makeDecoder(file.channels, file.schemas);
  let messages = 0, bytes = 0;
  for await (const m of messagesOf(file)) {
    decode(m);
    messages++;
    bytes += m.data.byteLength;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (file.fd !== undefined) fs.closeSync(file.fd);
  process.stdout.write(JSON.stringify({
    file: path, indexed: file.indexed, messages, bytes, seconds,
    messages_per_s: messages / seconds, mb_per_s: bytes / 1e6 / seconds,
  }) + "\n");
}

async function main() {
  const args = process.argv.slice(2);
  const benchMode = args.includes("--bench");
  const files = args.filter((a) => a !== "--bench");
  if (files.length !== 1) {
    process.stderr.write("usage: node dump.js [--bench] FILE.mcap\n");
    process.exit(2);
  }
  await zstd.isLoaded;
  await lz4.isLoaded;
  await (benchMode ? bench(files[0]) : dump(files[0]));
}

main().catch((err) => {
  process.stderr.write(`dump.js: ${err.stack || err}\n`);
  process.exit(1);
});
