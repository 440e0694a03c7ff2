/* The tables rosbag2's SQLite storage creates at schema version 3 (ROS 2
 * Humble), for the tests that write .db3 files with libsqlite3. */
#ifndef __ROBOCACHE_TEST_ROSBAG2_TABLES_H__
#define __ROBOCACHE_TEST_ROSBAG2_TABLES_H__

#define ROSBAG2_HUMBLE_TABLES \
    "CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, " \
    "ros_distro TEXT NOT NULL);" \
    "INSERT INTO schema VALUES (3, 'humble');" \
    "CREATE TABLE metadata(id INTEGER PRIMARY KEY, metadata_version " \
    "INTEGER NOT NULL, metadata TEXT NOT NULL);" \
    "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, " \
    "type TEXT NOT NULL, serialization_format TEXT NOT NULL, " \
    "offered_qos_profiles TEXT NOT NULL);" \
    "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT " \
    "NULL, timestamp INTEGER NOT NULL, data BLOB NOT NULL);" \
    "CREATE INDEX timestamp_idx ON messages (timestamp ASC);"

#endif
