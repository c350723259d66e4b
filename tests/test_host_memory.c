/*
 * The memory the process may use (src/host_memory.c), read from fake /proc
 * and cgroup trees whose numbers each case writes, and the estimate of a
 * solve's need (gridemst_host_bytes) against the solve's own refusal.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_memory.h"
#include "testutil.h"

static char tmpdir[512];
static int cases;

/* A fresh fake root for one case. */
static const char *new_root(char *buf, size_t size)
{
    snprintf(buf, size, "%s/root%d", tmpdir, cases++);
    ck_assert_int_eq(mkdir(buf, 0700), 0);
    return buf;
}

/* Writes root + path (making its directories) with content. */
static void put(const char *root, const char *path, const char *content)
{
    char name[1024];
    snprintf(name, sizeof name, "%s%s", root, path);
    for (char *slash = strchr(name + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        ck_assert_msg(mkdir(name, 0700) == 0 || errno == EEXIST, "mkdir %s", name);
        *slash = '/';
    }
    FILE *f = fopen(name, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    ck_assert_int_eq(fclose(f), 0);
}

static const char *meminfo(uint64_t available_kb)
{
    static char text[256];
    snprintf(text, sizeof text, "MemTotal:       99999999 kB\nMemFree:          100 kB\nMemAvailable:   %llu kB\n",
             (unsigned long long)available_kb);
    return text;
}

START_TEST(nothing_known)
{
    char root[600];
    ck_assert_uint_eq(gemst_usable_memory_under(new_root(root, sizeof root)), 0);
}
END_TEST

START_TEST(available_memory)
{
    char root[600];
    new_root(root, sizeof root);
    put(root, "/proc/meminfo", meminfo(1000));
    ck_assert_uint_eq(gemst_usable_memory_under(root), 1000 * 1024);
}
END_TEST

/* v2: the cgroup's limit less what it holds besides inactive file cache,
 * and the tightest level up to the root wins. */
START_TEST(cgroup_v2)
{
    char root[600];
    new_root(root, sizeof root);
    put(root, "/proc/meminfo", meminfo(1000000));
    put(root, "/proc/self/cgroup", "0::/a/b\n");
    put(root, "/sys/fs/cgroup/a/b/memory.max", "5000000\n");
    put(root, "/sys/fs/cgroup/a/b/memory.current", "3000000\n");
    put(root, "/sys/fs/cgroup/a/b/memory.stat", "anon 1000\nactive_file 5\ninactive_file 1000000\n");
    put(root, "/sys/fs/cgroup/a/memory.max", "max\n");
    put(root, "/sys/fs/cgroup/a/memory.current", "123\n");
    ck_assert_uint_eq(gemst_usable_memory_under(root), 5000000 - (3000000 - 1000000));
    /* a parent with less room */
    put(root, "/sys/fs/cgroup/a/memory.max", "2000000\n");
    put(root, "/sys/fs/cgroup/a/memory.current", "1500000\n");
    ck_assert_uint_eq(gemst_usable_memory_under(root), 2000000 - 1500000);
    /* MemAvailable below both */
    put(root, "/proc/meminfo", meminfo(100));
    ck_assert_uint_eq(gemst_usable_memory_under(root), 100 * 1024);
}
END_TEST

/* A container sees its own cgroup as the root ("0::/"), or a path that its
 * mount does not hold (levels without files set no limit). */
START_TEST(cgroup_v2_container)
{
    char root[600];
    new_root(root, sizeof root);
    put(root, "/proc/self/cgroup", "0::/\n");
    put(root, "/sys/fs/cgroup/memory.max", "7000000\n");
    put(root, "/sys/fs/cgroup/memory.current", "1000000\n");
    ck_assert_uint_eq(gemst_usable_memory_under(root), 6000000);
    put(root, "/proc/self/cgroup", "0::/docker/abc\n");
    ck_assert_uint_eq(gemst_usable_memory_under(root), 6000000);
    /* at or over its limit: at least 1, since 0 means unknown */
    put(root, "/sys/fs/cgroup/memory.current", "9000000\n");
    ck_assert_uint_eq(gemst_usable_memory_under(root), 1);
}
END_TEST

/* v1: the memory controller's hierarchy, named alone or among others; its
 * "no limit" is a number near 2^63. */
START_TEST(cgroup_v1)
{
    char root[600];
    new_root(root, sizeof root);
    put(root, "/proc/meminfo", meminfo(1000000));
    put(root, "/proc/self/cgroup", "5:cpu,cpuacct:/x\n4:memory:/x\n1:name=systemd:/x\n0::/\n");
    put(root, "/sys/fs/cgroup/memory/x/memory.limit_in_bytes", "8000000\n");
    put(root, "/sys/fs/cgroup/memory/x/memory.usage_in_bytes", "5000000\n");
    put(root, "/sys/fs/cgroup/memory/x/memory.stat", "cache 9\ninactive_file 7\ntotal_inactive_file 1000000\n");
    put(root, "/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    put(root, "/sys/fs/cgroup/memory/memory.usage_in_bytes", "50000000000\n");
    /* a limit on a controller other than memory does not count */
    put(root, "/sys/fs/cgroup/cpu/x/memory.limit_in_bytes", "10\n");
    ck_assert_uint_eq(gemst_usable_memory_under(root), 8000000 - (5000000 - 1000000));
    put(root, "/proc/self/cgroup", "7:cpuset,memory,blkio:/x\n");
    ck_assert_uint_eq(gemst_usable_memory_under(root), 8000000 - (5000000 - 1000000));
    put(root, "/proc/self/cgroup", "7:memoryless:/x\n");
    ck_assert_uint_eq(gemst_usable_memory_under(root), 1000000 * 1024);
}
END_TEST

START_TEST(this_process)
{
    /* where /proc/meminfo is readable, something is known, and no more than the machine has */
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return;
    fclose(f);
    uint64_t usable = gemst_usable_memory_bytes();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    ck_assert_uint_gt(usable, 0);
    if (pages > 0 && page > 0)
        ck_assert_uint_le(usable, (uint64_t)pages * (uint64_t)page);
}
END_TEST

/* The estimate is what the solve itself refuses or accepts: with the
 * backend's share as the cap the solve runs, one byte less it is refused. */
START_TEST(host_bytes_match_the_solve)
{
    const int64_t n = 20000;
    double *c = malloc(sizeof *c * (size_t)n * 3);
    ck_assert_ptr_nonnull(c);
    uint64_t seed = 3;
    for (int64_t i = 0; i < n * 3; i++)
        c[i] = rng_unit(&seed);
    const int64_t edges = (n - 1) * (int64_t)sizeof(gridemst_edge);
    for (int k = 0; k < 4; k++) {
        gridemst_options o;
        gridemst_options_init(&o);
        o.backend = GRIDEMST_BACKEND_CPU;
        o.nns = k & 1 ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
        o.precision = k & 2 ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT;
        int64_t need = gridemst_host_bytes(n, 3, &o);
        ck_assert_int_gt(need, edges);
        gridemst_result r = GRIDEMST_RESULT_INIT;
        gridemst_error err;
        o.max_host_bytes = need - edges - 1;
        ck_assert_int_eq(gridemst_solve(c, GRIDEMST_FLOAT64, n, 3, &o, &r, &err), GRIDEMST_ERR_NO_MEMORY);
        o.max_host_bytes = need - edges;
        ck_assert_msg(gridemst_solve(c, GRIDEMST_FLOAT64, n, 3, &o, &r, &err) == GRIDEMST_OK, "%s", err.message);
        gridemst_result_free(&r);
    }
    free(c);
}
END_TEST

START_TEST(host_bytes_arguments)
{
    gridemst_options o;
    gridemst_options_init(&o);
    ck_assert_int_eq(gridemst_host_bytes(-1, 2, NULL), -1);
    ck_assert_int_eq(gridemst_host_bytes(10, 4, NULL), -1);
    ck_assert_int_eq(gridemst_host_bytes((int64_t)1 << 33, 2, NULL), -1);
    /* more than 2^32 - 2 points over several devices: the tree in host memory */
    o.backend = GRIDEMST_BACKEND_CUDA;
    o.n_devices = 3;
    ck_assert_int_eq(gridemst_host_bytes((int64_t)1 << 33, 3, &o),
                     (((int64_t)1 << 33) - 1) * (int64_t)sizeof(gridemst_edge));
    ck_assert_int_eq(gridemst_host_bytes(3 * ((int64_t)UINT32_MAX - 1) + 1, 3, &o), -1);
    gridemst_options_init(&o);
    o.threads = -1;
    ck_assert_int_eq(gridemst_host_bytes(10, 2, &o), -1);
    /* nothing to solve, nothing needed */
    ck_assert_int_eq(gridemst_host_bytes(0, 2, NULL), 0);
    ck_assert_int_eq(gridemst_host_bytes(1, 3, NULL), 0);
    /* the CUDA backend keeps its working arrays on the device: the host holds the tree */
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CUDA;
    ck_assert_int_eq(gridemst_host_bytes(1000, 3, &o), 999 * (int64_t)sizeof(gridemst_edge));
    /* the largest set still has an answer */
    o.backend = GRIDEMST_BACKEND_CPU;
    ck_assert_int_gt(gridemst_host_bytes(((int64_t)1 << 32) - 2, 3, &o), 0);
}
END_TEST

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/gemst-mem-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 99;
    }
    Suite *s = suite_create("host_memory");
    TCase *tc = tcase_create("host_memory");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, nothing_known);
    tcase_add_test(tc, available_memory);
    tcase_add_test(tc, cgroup_v2);
    tcase_add_test(tc, cgroup_v2_container);
    tcase_add_test(tc, cgroup_v1);
    tcase_add_test(tc, this_process);
    tcase_add_test(tc, host_bytes_match_the_solve);
    tcase_add_test(tc, host_bytes_arguments);
    suite_add_tcase(s, tc);
    int status = run_suite(s);
    nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return status;
}
