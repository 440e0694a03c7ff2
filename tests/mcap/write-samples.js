#!/usr/bin/env node
// node tests/mcap/write-samples.js OUT_DIR [--seed N] [--large]
//
// Writes MCAP files the way ROS 2 tools do, with third-party libraries
// only (@mcap/core's McapWriter, @foxglove/rosmsg2-serialization's
// MessageWriter over definitions parsed by @foxglove/rosmsg), so that
// robocache's MCAP reader is tested on files no one on the team encoded.
// Profile "ros2", schema encoding "ros2msg", message encoding "cdr".
//
// Each file holds seeded pseudo-random content (the seed is printed and
// stored in each .expected.jsonl) on these topics:
//   /points                 PointCloud2, 10 Hz, height 1, x y z intensity
//                           (float32) ring (uint16) time (float32) in a
//                           32-byte point with gaps, is_dense false, NaNs
//   /joint_states           JointState, 100 Hz, 6 named joints
//   /camera/image_raw       Image 64x48 rgb8, 5 Hz
//   /camera/bgr/image_raw   Image bgr8 with 8 padding bytes a row
//   /camera/mono/image_raw  Image mono8
//   /camera/ir/image_raw    Image mono16
//   /chatter, /pose         std_msgs/String and geometry_msgs/PoseStamped:
//                           types robocache does not play (to be skipped)
// header.stamp is log_time - 3 ms (but in stamp-lag.mcap), so a test can
// tell which is used.
// Padding bytes in points and image rows are random, not zero.
//
// The files, and why a user meets each:
//   zstd.mcap             zstd chunks of 1 MiB, message and chunk indexes,
//                         statistics, summary offsets: what rosbag2 (the
//                         mcap C++ library's defaults) and Foxglove write.
//   lz4.mcap              lz4 chunks (LZ4 frames): chosen for cheap writes
//                         on robots, or by `mcap compress --compression lz4`.
//                         @foxglove/wasm-lz4 can only decompress, so the
//                         chunks are compressed by the lz4 command-line tool
//                         (the reference LZ4 implementation); without it
//                         the file is not written and a line says so.
//   uncompressed.mcap     chunks stored as is: writers set to compression
//                         "none" to save CPU on the robot.
//   unchunked.mcap        messages as top-level records, no chunks, no
//                         message index (summary with statistics kept):
//                         rosbag2's "fastwrite" storage preset and live
//                         streaming writers.
//   no-index.mcap         zstd chunks but no message index, no chunk index,
//                         no statistics, no summary at all: writers that
//                         never go back (pipes) or were set to write no
//                         index; a reader must scan from the start.
//   small-chunks.mcap     zstd chunks of 4 KiB, so most messages lie in
//                         chunks of their own or few: low-latency recorders
//                         and seeking across many chunk boundaries.
//   two-lidars.mcap       as zstd.mcap plus /ouster/points: an organized
//                         cloud (height 16) whose rows end in 24 padding
//                         bytes (row_step > width * point_step) and whose
//                         time field is float64.
//   crashed-mid-chunk.mcap   zstd.mcap cut in the middle of its second
//                         chunk: the recorder was killed while writing it.
//   crashed-no-summary.mcap  zstd.mcap cut where its DataEnd record starts:
//                         every chunk and message index was written but
//                         not the end of the file (DataEnd, summary,
//                         footer), as a recorder killed between two chunks
//                         leaves it.
//   big-endian.mcap       as zstd.mcap but every message in big-endian CDR
//                         (encapsulation 00 00): data from a big-endian
//                         host or a DDS vendor set to it; rare (no common
//                         ROS 2 platform is big-endian), but the CDR header
//                         allows it, so a reader must honour or refuse it.
//                         MessageWriter cannot write it (it always writes
//                         little-endian), so @foxglove/cdr's CdrWriter with
//                         kind CDR_BE encodes the fields (bigEndianWriter);
//                         check-samples.js decodes them with MessageReader.
//                         PointCloud2.data keeps is_bigendian false: only
//                         the CDR fields are big-endian, not the points.
//   stamp-lag.mcap        as zstd.mcap but /points stamped 80 ms before it
//                         is recorded, and its first sweep recorded after
//                         the other topics' first messages: a lidar driver
//                         stamps a sweep when it began, so the earliest
//                         stamp is not the first message's.
//   message-zstd.mcap     as uncompressed.mcap but each message's CDR bytes
//                         one zstd frame that gives its size, as `ros2 bag
//                         record --compression-mode message
//                         --compression-format zstd` writes them: rosbag2's
//                         own compression, not MCAP's, which rosbag2's
//                         documents point MCAP users away from but its
//                         command line still offers.
//   split/                zstd.mcap's messages in three files of
//                         uncompressed chunks, split_0.mcap to
//                         split_2.mcap, and a metadata.yaml: a recording
//                         rosbag2 split by size or duration
//                         (split.expected.jsonl beside it).
//   *.db3, split-db3/     the same messages in rosbag2's SQLite storage
//                         (write-db3.js says which files and why).
//   large-zstd.mcap       (--large only) 100 sweeps of 131072 points and
//                         10 s of the other topics, zstd, zeros in the
//                         point gaps (so it compresses like a real
//                         recording, to about half): a speed benchmark.
//
// Beside each FILE, FILE.expected.jsonl: a first line describing the file
// (topics with types and counts, unsupported ones included; whether it is
// chunked, compressed, indexed or truncated; readable_end: where the last
// whole record ends), then one line per message of a supported type in
// log_time order (see samples-lib.js describeMessage).  check-samples.js
// reads the files back and checks them against these lines.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { spawnSync } = require("node:child_process");
const { McapWriter, McapIndexedReader } = require("@mcap/core");
const { LIBRARY_IDENTIFIER } = require("@mcap/core");
const { MessageWriter } = require("@foxglove/rosmsg2-serialization");
const { CdrWriter, EncapsulationKind } = require("@foxglove/cdr");
const zstd = require("@foxglove/wasm-zstd");
const lib = require("./samples-lib");
const gen = require("./samples-content");
const { writeDb3Samples } = require("./write-db3");

const MiB = 1024 * 1024;

function parseArgs(argv) {
  const args = { outDir: null, seed: null, large: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--large") args.large = true;
    else if (argv[i] === "--seed" && i + 1 < argv.length) args.seed = Number(argv[++i]);
    else if (!argv[i].startsWith("--") && args.outDir === null) args.outDir = argv[i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (args.outDir === null) {
    throw new Error("usage: write-samples.js OUT_DIR [--seed N] [--large]");
  }
  if (args.seed === null) args.seed = Math.floor(Math.random() * 0x7fffffff);
  if (!Number.isInteger(args.seed) || args.seed < 0) throw new Error("--seed wants an integer >= 0");
  return args;
}

// McapWriter's output, written straight to a file.
class FileWritable {
  constructor(file) {
    this.fd = fs.openSync(file, "w");
    this.offset = 0n;
  }
  async write(buffer) {
    let done = 0;
    while (done < buffer.byteLength) done += fs.writeSync(this.fd, buffer, done);
    this.offset += BigInt(buffer.byteLength);
  }
  position() {
    return this.offset;
  }
  close() {
    fs.closeSync(this.fd);
  }
}

function zstdChunk(data) {
  return { compression: "zstd", compressedData: zstd.compress(data, 3) };
}

function lz4Available() {
  const probe = spawnSync("lz4", ["--version"], { stdio: "ignore" });
  return !probe.error && probe.status === 0;
}

// An LZ4 frame from the lz4 tool (wasm-lz4 has no compressor).
function lz4Chunk(data) {
  const run = spawnSync("lz4", ["-q", "-c", "-"], {
    input: data,
    maxBuffer: 2 * data.length + MiB,
  });
  if (run.error || run.status !== 0) throw new Error(`lz4 failed: ${run.error ?? run.stderr}`);
  return { compression: "lz4", compressedData: new Uint8Array(run.stdout) };
}

// Writes @events (in log_time order) with writer @options.  Returns the
// file size and, for each event, the number of the chunk holding it
// (McapWriter writes a chunk out only inside addMessage, once the chunk
// has grown past chunkSize with that message in it, or in end()).
async function writeMcap(file, channels, events, payload, options) {
  const writable = new FileWritable(file);
  const writer = new McapWriter({ ...options, writable });
  await writer.start({ profile: "ros2", library: `robocache tests, ${LIBRARY_IDENTIFIER}` });
  const schemaIds = new Map();
  const channelIds = new Map();
  for (const channel of channels) {
    if (!schemaIds.has(channel.type)) {
      const id = await writer.registerSchema({
        name: channel.type,
        encoding: "ros2msg",
        data: new TextEncoder().encode(lib.DEFINITIONS[channel.type]),
      });
      schemaIds.set(channel.type, id);
    }
    const id = await writer.registerChannel({
      topic: channel.topic,
      schemaId: schemaIds.get(channel.type),
      messageEncoding: "cdr",
      metadata: new Map([["offered_qos_profiles", gen.QOS_YAML]]),
    });
    channelIds.set(channel.topic, id);
    channel.id = id;
  }
  const chunkOf = [];
  let chunks = 0;
  for (const event of events) {
    const before = writable.position();
    await writer.addMessage({
      channelId: channelIds.get(event.topic.topic),
      sequence: event.index,
      logTime: event.logTime,
      publishTime: event.logTime,
      data: payload(event).bytes,
    });
    chunkOf.push(chunks);
    if (writable.position() !== before) chunks++;
  }
  await writer.end();
  writable.close();
  return { size: fs.statSync(file).size, chunkOf };
}

function channelsOf(topics) {
  return topics.map((t) => ({ topic: t.topic, type: t.type }));
}

// The first .expected.jsonl line; @present: the events wholly in the file.
// Keys: file, seed, variant; chunked, compression ("zstd", "lz4" or "" for
// chunks stored as is); message_compression ("zstd" where each message's
// bytes are one zstd frame, else ""); indexed (message and chunk indexes: @mcap/core's
// indexed reader can read it); summary (a summary section exists);
// truncated; file_size; readable_end (the end of the last whole record:
// file_size unless truncated); message_count (all topics); topics, in
// channel id order, each {topic, type, channel_id, schema_encoding,
// message_encoding, count, supported}, those of unsupported types too.
function describeFile(file, seed, variant, channels, present, facts) {
  const counts = new Map(channels.map((c) => [c.topic, 0]));
  for (const event of present) counts.set(event.topic.topic, counts.get(event.topic.topic) + 1);
  return {
    file: path.basename(file),
    seed,
    variant: variant.name,
    chunked: variant.options.useChunks !== false,
    compression: variant.compression,
    message_compression: variant.messageZstd ? "zstd" : "",
    indexed: variant.indexed,
    summary: variant.summary,
    truncated: facts.truncated,
    file_size: facts.size,
    readable_end: facts.readableEnd,
    message_count: present.length,
    topics: channels
      .filter((c) => facts.channelPresent(c))
      .map((c) => ({
        topic: c.topic,
        type: c.type,
        channel_id: c.id,
        schema_encoding: "ros2msg",
        message_encoding: "cdr",
        count: counts.get(c.topic),
        supported: lib.SUPPORTED_TYPES.has(c.type),
      })),
  };
}

function writeExpected(file, header, present, payload) {
  const lines = [JSON.stringify(header)];
  for (const event of present) {
    const line = payload(event).line;
    if (line) lines.push(JSON.stringify(line));
  }
  fs.writeFileSync(file + ".expected.jsonl", lines.join("\n") + "\n");
}

const VARIANTS = [
  { name: "zstd", compress: zstdChunk, compression: "zstd", options: {} },
  { name: "lz4", compress: lz4Chunk, compression: "lz4", options: {} },
  { name: "uncompressed", compress: undefined, compression: "", options: {} },
  {
    name: "unchunked",
    compress: undefined,
    compression: "",
    options: { useChunks: false },
    indexed: false,
  },
  {
    name: "no-index",
    compress: zstdChunk,
    compression: "zstd",
    options: {
      useMessageIndex: false,
      useChunkIndex: false,
      useStatistics: false,
      useSummaryOffsets: false,
      repeatSchemas: false,
      repeatChannels: false,
      useAttachmentIndex: false,
      useMetadataIndex: false,
    },
    indexed: false,
    summary: false,
  },
  { name: "small-chunks", compress: zstdChunk, compression: "zstd", options: { chunkSize: 4096 } },
  { name: "two-lidars", compress: zstdChunk, compression: "zstd", options: {}, extra: true },
  { name: "big-endian", compress: zstdChunk, compression: "zstd", options: {}, bigEndian: true },
  { name: "stamp-lag", compress: zstdChunk, compression: "zstd", options: {}, lagged: true },
  { name: "message-zstd", compress: undefined, compression: "", options: {}, messageZstd: true },
];

// rosbag2's message compression: each message's bytes one zstd frame.
function compressedPayload(payload) {
  return (event) => {
    const { bytes, line } = payload(event);
    return { bytes: zstd.compress(bytes, 3), line };
  };
}

async function writeVariant(outDir, seed, variant, topics, events, payload) {
  const file = path.join(outDir, variant.name + ".mcap");
  const channels = channelsOf(topics);
  const options = { ...variant.options, compressChunk: variant.compress };
  const { size, chunkOf } = await writeMcap(file, channels, events, payload, options);
  const facts = { truncated: false, size, readableEnd: size, channelPresent: () => true };
  const header = describeFile(file, seed, variant, channels, events, facts);
  writeExpected(file, header, events, payload);
  return { file, size, chunkOf, channels };
}

// The crashed copies of zstd.mcap.  Which messages are wholly written
// before a cut is worked out from the writer's side: writeMcap noted the
// chunk of each message, and @mcap/core's indexed reader of the whole
// file gives each chunk's start and length; a message survives when its
// chunk ends at or before the cut.  A channel survives when the chunk of
// its first message does (McapWriter puts the Channel record in that
// chunk).  The result is then checked against what @mcap/core's stream
// reader yields from the cut bytes (and its bytesRemaining against the
// readable end), so the two ways must agree or nothing is written.
async function writeCrashed(outDir, seed, whole, events, payload, handlers) {
  const fd = fs.openSync(whole.file, "r");
  const reader = await McapIndexedReader.Initialize({
    readable: lib.fileReadable(fd),
    decompressHandlers: handlers,
  });
  fs.closeSync(fd);
  const chunks = reader.chunkIndexes;
  if (chunks.length < 3) throw new Error(`${whole.file}: ${chunks.length} chunks, want 3 or more`);
  const bytes = fs.readFileSync(whole.file);
  const second = chunks[1];
  const cuts = [
    {
      name: "crashed-mid-chunk",
      cut: Number(second.chunkStartOffset + second.chunkLength / 2n),
      // The first chunk's message indexes end where the second chunk starts.
      readableEnd: Number(second.chunkStartOffset),
    },
    {
      name: "crashed-no-summary",
      cut: Number(reader.dataEndOffset),
      readableEnd: Number(reader.dataEndOffset),
    },
  ];
  const written = [];
  for (const { name, cut, readableEnd } of cuts) {
    const chunkEnd = (k) => Number(chunks[k].chunkStartOffset + chunks[k].chunkLength);
    const present = events.filter((_, i) => chunkEnd(whole.chunkOf[i]) <= cut);
    const firstChunk = new Map();
    events.forEach((e, i) => {
      if (!firstChunk.has(e.topic.topic)) firstChunk.set(e.topic.topic, whole.chunkOf[i]);
    });
    const channelPresent = (c) => chunkEnd(firstChunk.get(c.topic)) <= cut;
    const file = path.join(outDir, name + ".mcap");
    fs.writeFileSync(file, bytes.subarray(0, cut));
    crossCheckCut(file, bytes.subarray(0, cut), present, readableEnd, handlers);
    const variant = { name, compression: "zstd", options: {}, indexed: false, summary: false };
    const facts = { truncated: true, size: cut, readableEnd, channelPresent };
    const header = describeFile(file, seed, variant, whole.channels, present, facts);
    writeExpected(file, header, present, payload);
    written.push({ file, size: cut });
  }
  return written;
}

function crossCheckCut(file, bytes, present, readableEnd, handlers) {
  const { records, done, bytesRemaining } = lib.streamRecords(bytes, handlers);
  const channels = new Map();
  const seen = [];
  for (const r of records) {
    if (r.type === "Channel") channels.set(r.id, r.topic);
    if (r.type === "Message") seen.push(`${channels.get(r.channelId)} ${r.logTime}`);
  }
  const want = present.map((e) => `${e.topic.topic} ${e.logTime}`);
  if (done || seen.join("\n") !== want.join("\n")) {
    throw new Error(`${file}: stream reader yields ${seen.length} messages, offsets say ${want.length}`);
  }
  if (bytes.length - bytesRemaining !== readableEnd) {
    throw new Error(`${file}: stream reader stops at ${bytes.length - bytesRemaining}, not ${readableEnd}`);
  }
}

// zstd.mcap's messages as rosbag2 splits a recording (--max-bag-size,
// --max-bag-duration): a folder "split" of split_0.mcap, split_1.mcap and
// split_2.mcap, each a third of the messages in time order with every
// channel, in chunks stored as is (rosbag2's MCAP default), beside a
// metadata.yaml; split.expected.jsonl (beside the folder) is zstd.mcap's
// lines.
async function writeSplit(outDir, seed, topics, events, payload) {
  const dir = path.join(outDir, "split");
  fs.mkdirSync(dir, { recursive: true });
  const channels = channelsOf(topics);
  const files = [];
  for (let k = 0; k < 3; k++) {
    const part = events.slice(Math.floor((k * events.length) / 3), Math.floor(((k + 1) * events.length) / 3));
    const file = path.join(dir, `split_${k}.mcap`);
    const { size } = await writeMcap(file, channels, part, payload, {});
    files.push({ file, size });
  }
  fs.writeFileSync(
    path.join(dir, "metadata.yaml"),
    "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: mcap\n" +
      "  relative_file_paths:\n" + files.map((f) => `    - ${path.basename(f.file)}\n`).join(""),
  );
  const variant = indexedByDefault({ name: "split", compression: "", options: {} });
  const facts = { truncated: false, size: 0, readableEnd: 0, channelPresent: () => true };
  writeExpected(dir, describeFile(dir, seed, variant, channels, events, facts), events, payload);
  return files;
}

// Big-endian CDR, which MessageWriter cannot write: @foxglove/cdr's
// CdrWriter, told the CDR_BE encapsulation kind, encodes each field (and
// aligns it) while this walks the parsed definition.  Covers the field
// kinds of these samples: nested messages and their sequences, scalars,
// strings, ROS time and sequences of primitives.
function bigEndianWriter(definitions) {
  const structs = new Map(definitions.map((d) => [d.name ?? "", d.definitions]));
  const put = (writer, fields, value) => {
    for (const field of fields) {
      if (field.isConstant) continue;
      const v = value[field.name];
      if (field.arrayLength !== undefined) throw new Error("fixed-size arrays not needed here");
      if (field.isComplex && field.isArray) {
        writer.sequenceLength(v.length);
        for (const item of v) put(writer, structs.get(field.type), item);
      } else if (field.isComplex) {
        put(writer, structs.get(field.type), v);
      } else if (field.type === "time") {
        writer.int32(v.sec).uint32(v.nanosec);
      } else if (field.isArray && field.type === "string") {
        writer.sequenceLength(v.length);
        for (const item of v) writer.string(item);
      } else if (field.isArray) {
        writer[field.type + "Array"](v, true);
      } else if (field.type === "bool") {
        writer.uint8(v ? 1 : 0);
      } else {
        writer[field.type](v);
      }
    }
  };
  return {
    writeMessage(msg) {
      const writer = new CdrWriter({ kind: EncapsulationKind.CDR_BE });
      put(writer, definitions[0].definitions, msg);
      return writer.data;
    },
  };
}

// The CDR bytes and expected line of each event, made once for all files
// (or on demand, then forgotten, for the large file).
function payloadMaker(seed, cache, bigEndian = false) {
  const writers = new Map();
  const store = new Map();
  return (event) => {
    if (cache && store.has(event)) return store.get(event);
    const type = event.topic.type;
    if (!writers.has(type)) {
      const definitions = lib.parseDefinition(lib.DEFINITIONS[type]);
      writers.set(type, bigEndian ? bigEndianWriter(definitions) : new MessageWriter(definitions));
    }
    const msg = gen.makeMessage(seed, event);
    const result = {
      bytes: writers.get(type).writeMessage(msg),
      line: lib.describeMessage(event.topic.topic, type, event.logTime, msg),
    };
    if (cache) store.set(event, result);
    return result;
  };
}

function indexedByDefault(variant) {
  variant.indexed ??= true;
  variant.summary ??= true;
  return variant;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  fs.mkdirSync(args.outDir, { recursive: true });
  await zstd.isLoaded;
  const handlers = await lib.loadDecompressHandlers();
  console.log(`write-samples: seed ${args.seed}`);
  const written = [];
  const payload = payloadMaker(args.seed, true);
  const topics = gen.smallTopics();
  const events = gen.schedule(args.seed, topics, 2);
  const twoLidars = topics.concat([gen.OUSTER_TOPIC]);
  const twoLidarEvents = gen.schedule(args.seed, twoLidars, 2);
  const lagged = topics.map((t) => (t.topic === "/points" ? { ...t, offsetMs: 25, stampLagMs: 80 } : t));
  const laggedEvents = gen.schedule(args.seed, lagged, 2);
  let zstdFile = null;
  for (const variant of VARIANTS.map(indexedByDefault)) {
    if (variant.name === "lz4" && !lz4Available()) {
      console.log("write-samples: lz4.mcap not written: no lz4 command to compress with");
      continue;
    }
    const [t, e] = variant.extra
      ? [twoLidars, twoLidarEvents]
      : variant.lagged
        ? [lagged, laggedEvents]
        : [topics, events];
    let p = variant.bigEndian ? payloadMaker(args.seed, false, true) : payload;
    if (variant.messageZstd) p = compressedPayload(p);
    const result = await writeVariant(args.outDir, args.seed, variant, t, e, p);
    if (variant.name === "zstd") zstdFile = result;
    written.push(result);
  }
  written.push(...(await writeCrashed(args.outDir, args.seed, zstdFile, events, payload, handlers)));
  written.push(...(await writeSplit(args.outDir, args.seed, topics, events, payload)));
  written.push(
    ...(await writeDb3Samples(args.outDir, args.seed, topics, events, payload, { describeFile, writeExpected })),
  );
  if (args.large) {
    const large = gen.largeTopics();
    const largeEvents = gen.schedule(args.seed, large, 10);
    const variant = indexedByDefault({ name: "large-zstd", compress: zstdChunk, compression: "zstd", options: {} });
    const bigPayload = payloadMaker(args.seed, false);
    written.push(await writeVariant(args.outDir, args.seed, variant, large, largeEvents, bigPayload));
  }
  for (const w of written) console.log(`${path.basename(w.file)}\t${w.size} bytes`);
}

main().catch((error) => {
  console.error(`write-samples: ${error.stack ?? error}`);
  process.exit(1);
});
