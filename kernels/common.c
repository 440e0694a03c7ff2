/* Status texts and scalar types: shared by every operation. */
#include "internal.h"

#include <string.h>

static _Thread_local char error_detail[256];

void
rc_set_error_detail (const char *text)
{
  if (!text)
    text = "";
  strncpy (error_detail, text, sizeof (error_detail) - 1);
  error_detail[sizeof (error_detail) - 1] = '\0';
}

const char *
rc_error_detail (void)
{
  return error_detail;
}

void
rc_clear_error_detail (void)
{
  error_detail[0] = '\0';
}

const char *
rc_status_message (rc_status status)
{
  switch (status) {
    case RC_OK:
      return "success";
    case RC_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case RC_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case RC_ERROR_NO_DEVICE:
      return "no CUDA device or driver";
    case RC_ERROR_CUDA:
      return "CUDA error";
    case RC_ERROR_NOT_BUILT:
      return "robocache was built without CUDA";
    case RC_ERROR_UNSUPPORTED_DEVICE:
      return "the GPU cannot run the kernels robocache was built with";
  }
  return "unknown status";
}

static const struct
{
  const char *name;
  size_t size;
} scalar_types[] = {
  [RC_TYPE_INT8] = {"int8", 1},
  [RC_TYPE_UINT8] = {"uint8", 1},
  [RC_TYPE_INT16] = {"int16", 2},
  [RC_TYPE_UINT16] = {"uint16", 2},
  [RC_TYPE_INT32] = {"int32", 4},
  [RC_TYPE_UINT32] = {"uint32", 4},
  [RC_TYPE_FLOAT32] = {"float32", 4},
  [RC_TYPE_FLOAT64] = {"float64", 8},
  [RC_TYPE_BFLOAT16] = {"bfloat16", 2},
};

size_t
rc_scalar_type_size (rc_scalar_type type)
{
  if ((unsigned) type >= RC_TYPE_INVALID)
    return 0;
  return scalar_types[type].size;
}

rc_scalar_type
rc_scalar_type_from_string (const char *name)
{
  if (!name)
    return RC_TYPE_INVALID;
  for (unsigned i = 0; i < RC_TYPE_INVALID; i++) {
    if (strcmp (name, scalar_types[i].name) == 0)
      return (rc_scalar_type) i;
  }
  return RC_TYPE_INVALID;
}

const char *
rc_scalar_type_to_string (rc_scalar_type type)
{
  if ((unsigned) type >= RC_TYPE_INVALID)
    return "invalid";
  return scalar_types[type].name;
}
