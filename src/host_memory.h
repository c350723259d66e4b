/*
 * The host memory this process may still use, for the solver's check
 * before it allocates and for the tools' checks before they generate.
 */
#ifndef GEMST_HOST_MEMORY_H
#define GEMST_HOST_MEMORY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bytes this process may still allocate: the least of
 *   - MemAvailable of /proc/meminfo (free memory and what the kernel can
 *     reclaim without swapping);
 *   - for its cgroup and each cgroup above it, the memory limit less the
 *     memory charged to it that is not inactive file cache (cgroup v2:
 *     memory.max, memory.current, memory.stat's inactive_file; v1:
 *     memory.limit_in_bytes, memory.usage_in_bytes, total_inactive_file);
 *   - RLIMIT_AS less the address space mapped, and RLIMIT_DATA less the
 *     data segment (/proc/self/statm).
 * What cannot be read counts as no limit; 0 when nothing is known (at
 * least 1 otherwise).
 */
uint64_t gemst_usable_memory_bytes(void);

/* The same from the files under root (a directory standing for "/", for
 * tests), with the resource limits only when root is "". */
uint64_t gemst_usable_memory_under(const char *root);

#ifdef __cplusplus
}
#endif

#endif
