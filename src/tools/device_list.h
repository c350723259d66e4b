/* A list of CUDA devices as the tools' --devices option takes it. */
#ifndef GEMST_TOOLS_DEVICE_LIST_H
#define GEMST_TOOLS_DEVICE_LIST_H

#include <stddef.h>

/* "all" (*n_devices GRIDEMST_ALL_DEVICES), or device numbers separated by
 * commas, at most `most` of them, into ordinal[] (*n_devices their count;
 * the library checks that they are distinct and present).  0, or -1 with
 * a message naming the bad part of value in why. */
int gemst_parse_device_list(const char *value, int most, int *ordinal, int *n_devices, char *why, size_t why_size);

#endif
