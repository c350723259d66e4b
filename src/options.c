/* Option defaults and the names of option values. */
#include <limits.h>
#include <string.h>

#include "common.h"
#include "struct_size.h"

gridemst_status gridemst_options_init_size(gridemst_options *caller, size_t struct_size)
{
    gridemst_options full, *opt = &full;
    memset(opt, 0, sizeof *opt);
    opt->struct_size = sizeof *opt;
    opt->backend = GRIDEMST_BACKEND_AUTO;
    opt->nns = GRIDEMST_NNS_AUTO;
    opt->precision = GRIDEMST_PRECISION_FLOAT;
    opt->threads = 0;
    opt->device = 0;
    opt->tuning.prune = GRIDEMST_PRUNE_STATIC;
    opt->tuning.findmin2 = GRIDEMST_FINDMIN2_ATOMIC;
    opt->tuning.cell_occupancy = 0.0;
    return (gridemst_status)gemst_struct_init(&gemst_options_kind, caller, struct_size, opt);
}

const char *gridemst_version(void)
{
    return GRIDEMST_VERSION_STRING;
}

/* A table of names for the values 0, 1, ... of one option. */
static const char *name_of(const char *const *names, int count, int v)
{
    return v >= 0 && v < count ? names[v] : "unknown";
}

static int parse_name(const char *const *names, int count, const char *name, int *out)
{
    for (int v = 0; name && v < count; v++)
        if (strcmp(name, names[v]) == 0) {
            *out = v;
            return 0;
        }
    return -1;
}

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const status_names[] = {"ok", "invalid argument", "invalid input", "out of host memory",
                                           "out of device memory", "no CUDA device", "CUDA error",
                                           "unsupported", "internal error", "cancelled"};
static const char *const backend_names[] = {"auto", "cpu", "cuda"};
static const char *const nns_names[] = {"grid", "bvh", "auto"};
static const char *const prune_names[] = {"none", "dynamic", "static"};
static const char *const findmin2_names[] = {"list", "atomic"};
static const char *const precision_names[] = {"float", "double"};
static const char *const result_place_names[] = {"host", "device"};
static const char *const cluster_selection_names[] = {"eom", "leaf"};

const char *gridemst_status_name(gridemst_status status)
{
    return name_of(status_names, COUNT(status_names), status);
}

/* One name accessor and one parser per option, all alike. */
#define OPTION_NAMES(option, type, table)                                                                        \
    const char *gridemst_##option##_name(type v) { return name_of(table, COUNT(table), (int)v); }               \
    int gridemst_parse_##option(const char *name, type *out)                                                     \
    {                                                                                                            \
        int v;                                                                                                   \
        if (parse_name(table, COUNT(table), name, &v) != 0)                                                      \
            return -1;                                                                                           \
        *out = (type)v;                                                                                          \
        return 0;                                                                                                \
    }

OPTION_NAMES(backend, gridemst_backend, backend_names)
OPTION_NAMES(nns, gridemst_nns, nns_names)
OPTION_NAMES(prune, gridemst_prune, prune_names)
OPTION_NAMES(findmin2, gridemst_findmin2, findmin2_names)
OPTION_NAMES(precision, gridemst_precision, precision_names)
OPTION_NAMES(result_place, gridemst_result_place, result_place_names)
OPTION_NAMES(cluster_selection, gridemst_cluster_selection, cluster_selection_names)

int gridemst_parse_late_bvh(const char *name, int *out)
{
    if (!name)
        return -1;
    if (strcmp(name, "auto") == 0 || strcmp(name, "never") == 0) {
        *out = name[0] == 'a' ? 0 : -1;
        return 0;
    }
    int v = 0;
    for (const char *c = name; *c; c++) {
        if (*c < '0' || *c > '9' || v > (INT_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*c - '0');
    }
    if (v < 1)
        return -1;
    *out = v;
    return 0;
}
