/* The host memory this process may still use (see host_memory.h). */
#include "host_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* No limit: larger than any memory. */
#define UNLIMITED UINT64_MAX
/* cgroup v1 writes "no limit" as the largest page count in bytes, about 2^63. */
#define V1_NO_LIMIT ((uint64_t)1 << 62)

static uint64_t smaller(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Opens root + dir + "/" + file for reading; NULL when missing (or the name too long). */
static FILE *open_under(const char *root, const char *dir, const char *file)
{
    char name[4096];
    int len = snprintf(name, sizeof name, "%s%s/%s", root, dir, file);
    return len >= 0 && (size_t)len < sizeof name ? fopen(name, "r") : NULL;
}

/* The first number of a file ("max" or missing: UNLIMITED). */
static uint64_t read_number(const char *root, const char *dir, const char *file)
{
    unsigned long long v;
    FILE *f = open_under(root, dir, file);
    if (!f)
        return UNLIMITED;
    int ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    return ok ? (uint64_t)v : UNLIMITED;
}

/* The value of the line "key N" (or "key: N") of a file of such lines,
 * times unit; 0 when absent. */
static uint64_t read_keyed(const char *root, const char *dir, const char *file, const char *key, uint64_t unit)
{
    char line[256];
    uint64_t value = 0;
    size_t klen = strlen(key);
    FILE *f = open_under(root, dir, file);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && (line[klen] == ' ' || line[klen] == ':')) {
            value = strtoull(line + klen + 1, NULL, 10) * unit;
            break;
        }
    if (f)
        fclose(f);
    return value;
}

static uint64_t mem_available(const char *root)
{
    uint64_t kb = read_keyed(root, "/proc", "meminfo", "MemAvailable", 1024);
    return kb > 0 ? kb : UNLIMITED;
}

/* What one cgroup directory leaves: limit - (usage - inactive file cache). */
static uint64_t cgroup_left(const char *root, const char *dir, const char *limit_file, const char *usage_file,
                            const char *inactive_key)
{
    uint64_t limit = read_number(root, dir, limit_file);
    if (limit == UNLIMITED || limit >= V1_NO_LIMIT)
        return UNLIMITED;
    uint64_t usage = read_number(root, dir, usage_file);
    uint64_t inactive = read_keyed(root, dir, "memory.stat", inactive_key, 1);
    if (usage == UNLIMITED)
        usage = 0;
    usage = inactive < usage ? usage - inactive : 0;
    return usage < limit ? limit - usage : 0;
}

/* The least any level leaves, from the cgroup at mount + cgroup up to the
 * mount's root (a level whose files are missing sets no limit: the
 * hierarchy seen from a container starts at its own cgroup). */
static uint64_t cgroup_hierarchy(const char *root, const char *mount, const char *cgroup, const char *limit_file,
                                 const char *usage_file, const char *inactive_key)
{
    char dir[4096];
    uint64_t left = UNLIMITED;
    if (snprintf(dir, sizeof dir, "%s%s", mount, strcmp(cgroup, "/") == 0 ? "" : cgroup) >= (int)sizeof dir)
        return UNLIMITED;
    size_t base = strlen(mount);
    for (;;) {
        left = smaller(left, cgroup_left(root, dir, limit_file, usage_file, inactive_key));
        char *slash = strrchr(dir + base, '/');
        if (!slash)
            break;
        *slash = '\0';
    }
    return left;
}

/* Whether the comma-separated controller list [s, end) names memory. */
static int lists_memory(const char *s, const char *end)
{
    while (s < end) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        const char *stop = comma ? comma : end;
        if (stop - s == 6 && memcmp(s, "memory", 6) == 0)
            return 1;
        s = stop + 1;
    }
    return 0;
}

/* The cgroups of /proc/self/cgroup: "0::/path" (v2), "N:a,memory,b:/path" (v1). */
static uint64_t cgroup_limits(const char *root)
{
    char line[4096];
    uint64_t left = UNLIMITED;
    FILE *f = open_under(root, "/proc/self", "cgroup");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || c2[1] != '/')
            continue;
        *c1 = '\0';
        if (strcmp(line, "0") == 0 && c2 == c1 + 1)
            left = smaller(left, cgroup_hierarchy(root, "/sys/fs/cgroup", c2 + 1, "memory.max", "memory.current",
                                                  "inactive_file"));
        else if (lists_memory(c1 + 1, c2))
            left = smaller(left, cgroup_hierarchy(root, "/sys/fs/cgroup/memory", c2 + 1, "memory.limit_in_bytes",
                                                  "memory.usage_in_bytes", "total_inactive_file"));
    }
    if (f)
        fclose(f);
    return left;
}

/* A resource limit less what the process already uses of it (statm field
 * `field`, in pages). */
static uint64_t rlimit_left(int resource, int field)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UNLIMITED;
    unsigned long long pages[7] = {0};
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu %llu %llu %llu %llu %llu %llu", &pages[0], &pages[1], &pages[2], &pages[3], &pages[4],
                   &pages[5], &pages[6]) != 7)
            pages[field] = 0;
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE);
    uint64_t used = (uint64_t)pages[field] * (uint64_t)(page > 0 ? page : 4096);
    return used < (uint64_t)rl.rlim_cur ? (uint64_t)rl.rlim_cur - used : 0;
}

uint64_t gemst_usable_memory_under(const char *root)
{
    uint64_t left = smaller(mem_available(root), cgroup_limits(root));
    if (root[0] == '\0') {
        left = smaller(left, rlimit_left(RLIMIT_AS, 0));   /* statm: size */
        left = smaller(left, rlimit_left(RLIMIT_DATA, 5)); /* statm: data + stack */
    }
    if (left == UNLIMITED)
        return 0;
    return left > 0 ? left : 1; /* 0 would read as unknown */
}

uint64_t gemst_usable_memory_bytes(void)
{
    return gemst_usable_memory_under("");
}
