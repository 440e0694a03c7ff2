/* libFuzzer target over the ROS bag reader (gst/formats/robocachebag.c):
 * opens the input as a bag from memory (through its index, or, without a
 * usable one, by scanning its chunks: gst/formats/bag-scan.c), reads every
 * message found and parses it as each supported message type.  Built with meson -Dfuzz=true and
 * clang; see docs/fuzzing.md for how it is run. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "formats/robocachebag.h"
#include "formats/ros1msg.h"

/* Keeps a decompressed chunk, and so the fuzzer's memory, small. */
#define FUZZ_MAX_CHUNK (16 << 20)
#define FUZZ_MAX_MESSAGES 4096

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RcBag *bag = rc_bag_open_data (data, size, FUZZ_MAX_CHUNK, NULL);
  gsize n;

  if (!bag)
    return 0;
  if (rc_bag_get_recovery (bag)->scanned)
    (void) strlen (rc_bag_get_recovery (bag)->reason);
  for (guint i = 0; i < rc_bag_n_connections (bag); i++)
    (void) rc_bag_get_connection (bag, i)->topic;
  n = MIN (rc_bag_n_entries (bag), FUZZ_MAX_MESSAGES);
  (void) rc_bag_lower_bound (bag, 1000);
  for (gsize i = 0; i < n; i++) {
    const RcBagEntry *e = rc_bag_get_entry (bag, i);
    const guint8 *msg;
    gsize len;
    RcPointCloud2 cloud;
    RcJointState joints;
    RcImage image;

    if (!rc_bag_read (bag, e, &msg, &len, NULL))
      continue;
    if (rc_ros1_parse_point_cloud2 (msg, len, &cloud, NULL))
      rc_ros_point_cloud2_clear (&cloud);
    if (rc_ros1_parse_joint_state (msg, len, &joints, NULL))
      rc_ros_joint_state_clear (&joints);
    if (rc_ros1_parse_image (msg, len, &image, NULL))
      rc_ros_image_clear (&image);
  }
  rc_bag_free (bag);
  return 0;
}
