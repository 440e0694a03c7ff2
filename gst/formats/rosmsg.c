/* What the decoded ROS messages of rosmsg.h own, freed. */
#include "rosmsg.h"

void
rc_ros_header_clear (RcRosHeader * header)
{
  g_clear_pointer (&header->frame_id, g_free);
}

void
rc_ros_point_cloud2_clear (RcPointCloud2 * msg)
{
  rc_ros_header_clear (&msg->header);
  for (guint i = 0; i < msg->n_fields; i++)
    g_free (msg->fields[i].name);
  g_clear_pointer (&msg->fields, g_free);
  msg->n_fields = 0;
}

void
rc_ros_joint_state_clear (RcJointState * msg)
{
  rc_ros_header_clear (&msg->header);
  g_clear_pointer (&msg->names, g_strfreev);
  g_clear_pointer (&msg->position, g_free);
  g_clear_pointer (&msg->velocity, g_free);
  g_clear_pointer (&msg->effort, g_free);
  msg->n_names = msg->n_position = msg->n_velocity = msg->n_effort = 0;
}

void
rc_ros_image_clear (RcImage * msg)
{
  rc_ros_header_clear (&msg->header);
  g_clear_pointer (&msg->encoding, g_free);
}

void
rc_ros_compressed_image_clear (RcCompressedImage * msg)
{
  rc_ros_header_clear (&msg->header);
  g_clear_pointer (&msg->format, g_free);
}
