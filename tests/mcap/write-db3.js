// rosbag2's SQLite storage (`<name>_0.db3`, ROS 2's default up to Humble),
// written by SQLite itself (sql.js, SQLite compiled to WebAssembly) with
// the tables rosbag2's sqlite3 storage plugin creates, and the same CDR
// messages as the MCAP samples (@foxglove/rosmsg2-serialization): so that
// robocache's reader is tested on databases it did not write.  Called by
// write-samples.js; beside each file its .expected.jsonl, as for the MCAP
// files.
//
// The files, and why a user meets each:
//   humble.db3        schema version 3 (ROS 2 Humble): the schema and
//                     metadata tables, topics with offered_qos_profiles,
//                     messages with the timestamp index; no stored message
//                     definitions, so readers use the standard ones.
//   jazzy.db3         schema version 4 (Iron on): topics with
//                     type_description_hash, a message_definitions table
//                     holding each type's ros2msg text, and the database
//                     left in WAL mode (bytes 18 and 19 of its header are 2),
//                     as rosbag2's "resilient" storage preset leaves it.
//   foxy.db3          schema version 2 (Foxy, Galactic): no schema table,
//                     no metadata table, and no timestamp index, messages
//                     inserted in receive order with some arriving late, so
//                     that the reader must order them itself; /points'
//                     second message shares its timestamp with a message
//                     before it (the two play in row id order).
//   message-zstd.db3  as humble.db3 with each message's CDR bytes one zstd
//                     frame: `ros2 bag record --compression-mode message`.
//   split-db3/        humble.db3's messages in three files, split-db3_0.db3
//                     to split-db3_2.db3, beside a metadata.yaml of storage
//                     sqlite3: a recording rosbag2 split by size
//                     (split-db3.expected.jsonl beside the folder).
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const initSqlJs = require("sql.js");
const zstd = require("@foxglove/wasm-zstd");
const lib = require("./samples-lib");
const gen = require("./samples-content");

// The header bytes that say a database is in WAL mode (2) or not (1).
const WAL_VERSION_OFFSET = 18;

function createTables(db, version) {
  if (version >= 3) {
    db.run("CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, ros_distro TEXT NOT NULL);");
    db.run("CREATE TABLE metadata(id INTEGER PRIMARY KEY, metadata_version INTEGER NOT NULL, metadata TEXT NOT NULL);");
    db.run("INSERT INTO schema (schema_version, ros_distro) VALUES (?, ?)", [version, version >= 4 ? "jazzy" : "humble"]);
  }
  const hash = version >= 4 ? ", type_description_hash TEXT NOT NULL" : "";
  db.run(
    "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, " +
      `serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL${hash});`,
  );
  if (version >= 4) {
    db.run(
      "CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT NOT NULL, " +
        "encoding TEXT NOT NULL, encoded_message_definition TEXT NOT NULL, type_description_hash TEXT NOT NULL);",
    );
  }
  db.run("CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, data BLOB NOT NULL);");
  if (version >= 3) db.run("CREATE INDEX timestamp_idx ON messages (timestamp ASC);");
}

// The topics in the order rosbag2 meets them; their ids by name.
function insertTopics(db, version, topics) {
  const ids = new Map();
  const defined = new Set();
  for (const t of topics) {
    const hash = version >= 4 ? [`RIHS01_${"0".repeat(64)}`] : [];
    db.run(
      `INSERT INTO topics (name, type, serialization_format, offered_qos_profiles${version >= 4 ? ", type_description_hash" : ""}) ` +
        `VALUES (?, ?, 'cdr', ?${version >= 4 ? ", ?" : ""})`,
      [t.topic, t.type, gen.QOS_YAML, ...hash],
    );
    ids.set(t.topic, db.exec("SELECT last_insert_rowid()")[0].values[0][0]);
    if (version >= 4 && !defined.has(t.type)) {
      db.run(
        "INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, type_description_hash) " +
          "VALUES (?, 'ros2msg', ?, ?)",
        [t.type, lib.DEFINITIONS[t.type], ...hash],
      );
      defined.add(t.type);
    }
  }
  return ids;
}

// @order: the events in the order they are inserted (receive order).
function writeDb3(file, version, topics, order, payload, options = {}) {
  const db = new options.SQL.Database();
  createTables(db, version);
  const ids = insertTopics(db, version, topics);
  db.run("BEGIN TRANSACTION;");
  const insert = db.prepare("INSERT INTO messages (timestamp, topic_id, data) VALUES (?, ?, ?)");
  for (const event of order) {
    let bytes = payload(event).bytes;
    if (options.messageZstd) bytes = zstd.compress(bytes, 3);
    // As text: SQLite's INTEGER affinity stores it as the exact 64-bit
    // integer, where a JavaScript number would round it.
    insert.run([String(event.logTime), ids.get(event.topic.topic), bytes]);
  }
  insert.free();
  db.run("COMMIT;");
  const check = db.exec("SELECT typeof(timestamp) FROM messages GROUP BY 1");
  if (check.length !== 1 || check[0].values.length !== 1 || check[0].values[0][0] !== "integer") {
    throw new Error(`${file}: timestamps not stored as integers`);
  }
  const bytes = Buffer.from(db.export());
  db.close();
  if (options.wal) bytes[WAL_VERSION_OFFSET] = bytes[WAL_VERSION_OFFSET + 1] = 2;
  fs.writeFileSync(file, bytes);
  return { file, size: bytes.length };
}

function metadataYaml(files) {
  return (
    "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n" +
    "  relative_file_paths:\n" +
    files.map((f) => `    - ${path.basename(f.file)}\n`).join("")
  );
}

// The expected lines, as for the MCAP files: whole, indexed files.
function expect(file, seed, name, topics, events, payload, describe) {
  const variant = { name, compression: "", options: {}, indexed: true, summary: true, messageZstd: false };
  const facts = { truncated: false, size: 0, readableEnd: 0, channelPresent: () => true };
  const channels = topics.map((t) => ({ topic: t.topic, type: t.type }));
  describe.writeExpected(file, describe.describeFile(file, seed, variant, channels, events, facts), events, payload);
}

// Receive order: every 7th message arrives after the next two.
function lateOrder(events) {
  const order = events.slice();
  for (let i = 0; i + 2 < order.length; i += 7) {
    const [late] = order.splice(i, 1);
    order.splice(i + 2, 0, late);
  }
  return order;
}

// Foxy's file: /points' second message takes the timestamp of the played
// message before it (one of a type robocache decodes, so that their order
// shows), and the messages arrive partly late (lateOrder); the
// expected order is by timestamp, then by arrival (the row id), as
// rosbag2 plays them.
function foxyOrders(events) {
  const copies = events.map((e) => ({ ...e }));
  const second = copies.filter((e) => e.topic.topic === "/points")[1];
  const before = copies
    .slice(0, copies.indexOf(second))
    .reverse()
    .find((e) => lib.SUPPORTED_TYPES.has(e.topic.type));
  if (!before) throw new Error("foxy.db3: no played message before /points' second");
  second.logTime = before.logTime;
  const arrival = lateOrder(copies);
  const rank = new Map(arrival.map((e, i) => [e, i]));
  const played = copies
    .slice()
    .sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : rank.get(a) - rank.get(b)));
  return { arrival, played };
}

async function writeDb3Samples(outDir, seed, topics, events, payload, describe) {
  const SQL = await initSqlJs();
  const written = [];
  const plain = { SQL };
  for (const [name, version, extra] of [
    ["humble", 3, {}],
    ["jazzy", 4, { wal: true }],
    ["message-zstd", 3, { messageZstd: true }],
  ]) {
    const file = path.join(outDir, `${name}.db3`);
    written.push(writeDb3(file, version, topics, events, payload, { ...plain, ...extra }));
    expect(file, seed, name, topics, events, payload, describe);
  }

  const { arrival, played } = foxyOrders(events);
  const foxy = path.join(outDir, "foxy.db3");
  written.push(writeDb3(foxy, 2, topics, arrival, payload, plain));
  expect(foxy, seed, "foxy", topics, played, payload, describe);

  const dir = path.join(outDir, "split-db3");
  fs.mkdirSync(dir, { recursive: true });
  const parts = [];
  for (let k = 0; k < 3; k++) {
    const part = events.slice(Math.floor((k * events.length) / 3), Math.floor(((k + 1) * events.length) / 3));
    parts.push(writeDb3(path.join(dir, `split-db3_${k}.db3`), 3, topics, part, payload, plain));
  }
  fs.writeFileSync(path.join(dir, "metadata.yaml"), metadataYaml(parts));
  expect(dir, seed, "split-db3", topics, events, payload, describe);
  return written.concat(parts);
}

module.exports = { writeDb3Samples };
