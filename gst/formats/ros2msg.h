#include "reader.h"
#include "rosmsg.h"
#include "ros2types.h"
typedef struct _RcRos2Decoder RcRos2Decoder;
RcRos2Decoder *rc_ros2_decoder_new (const gchar * type, const gchar * schema,
    gsize schema_size, GError ** error);
void rc_ros2_decoder_free (RcRos2Decoder * decoder);
gboolean rc_ros2_parse_header (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcRosHeader * header, GError ** error);
gboolean rc_ros2_parse_point_cloud2 (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcPointCloud2 * msg, GError ** error);
gboolean rc_ros2_parse_joint_state (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcJointState * msg, GError ** error);
gboolean rc_ros2_parse_image (const RcRos2Decoder * decoder,
    const guint8 * data, gsize size, RcImage * msg, GError ** error);
