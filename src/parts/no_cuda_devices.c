/* What the devices of a solve over several GPUs provide, in a build
 * without CUDA: none (gemst_resolve_devices refuses such a solve first). */
#include "parts/device_assemble.h"

int gemst_devices_open(const int *ordinal, int count, gemst_devices **out, gridemst_error *err)
{
    (void)ordinal;
    *out = NULL;
    return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "no CUDA in this build to join %d devices", count);
}

void gemst_devices_close(gemst_devices *d)
{
    (void)d;
}

gridemst_context *gemst_devices_context(const gemst_devices *d, int p)
{
    (void)d;
    (void)p;
    return NULL;
}

void gemst_devices_name(const gemst_devices *d, char *name, size_t size)
{
    (void)d;
    if (size > 0)
        name[0] = '\0';
}

int gemst_devices_allgather(gemst_devices *d, const void *const *send, const int64_t *count, size_t size, void *out,
                            gridemst_error *err)
{
    (void)d, (void)send, (void)count, (void)size, (void)out;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to exchange between in a build without CUDA");
}

int gemst_devices_alltoall(gemst_devices *d, const void *const *send, const int64_t *count, size_t size,
                           void *const *recv, gridemst_error *err)
{
    (void)d, (void)send, (void)count, (void)size, (void)recv;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to exchange between in a build without CUDA");
}

int gemst_devices_slice_box(gemst_devices *d, int p, gridemst_dtype dtype, int dim, const void *coords, int64_t first,
                            int64_t n, int threads, double box[6], gridemst_error *err)
{
    (void)d, (void)p, (void)dtype, (void)dim, (void)coords, (void)first, (void)n, (void)threads, (void)box;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to partition on in a build without CUDA");
}

int gemst_devices_slice_keys(gemst_devices *d, int p, const gemst_parts_metric *m, const gemst_frame *f,
                             const gemst_region_space *sp, int64_t n_sample, uint64_t *sample, gridemst_error *err)
{
    (void)d, (void)p, (void)m, (void)f, (void)sp, (void)n_sample, (void)sample;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to partition on in a build without CUDA");
}

int gemst_devices_slice_pack(gemst_devices *d, int p, const uint64_t *split, int n_split, int64_t *row,
                             gridemst_error *err)
{
    (void)d, (void)p, (void)split, (void)n_split, (void)row;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to partition on in a build without CUDA");
}

int gemst_devices_send_points(gemst_devices *d, const int64_t *count, gridemst_error *err)
{
    (void)d, (void)count;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to exchange between in a build without CUDA");
}

int gemst_devices_part_ids(gemst_devices *d, int p, gemst_gid *id, int threads, gridemst_error *err)
{
    (void)d, (void)p, (void)id, (void)threads;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to partition on in a build without CUDA");
}

const void *gemst_devices_part_coords(const gemst_devices *d, int p)
{
    (void)d;
    (void)p;
    return NULL;
}

const uint32_t *gemst_devices_part_places(const gemst_devices *d, int p)
{
    (void)d;
    (void)p;
    return NULL;
}

const gemst_id_runs *gemst_devices_part_runs(const gemst_devices *d, int p)
{
    (void)d;
    (void)p;
    return NULL;
}

int gemst_devices_keep_tree(gemst_devices *d, int p, void *edges, int64_t m, const gemst_parts_edge **tree,
                            gridemst_error *err)
{
    (void)d, (void)p, (void)edges, (void)m;
    *tree = NULL;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to keep a tree on in a build without CUDA");
}

int gemst_devices_tree_marks(gemst_devices *d, int p, uint8_t **marks, gridemst_error *err)
{
    (void)d, (void)p;
    *marks = NULL;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to keep a tree on in a build without CUDA");
}

int gemst_devices_tree_to_host(gemst_devices *d, int p, gemst_parts_edge *to, int threads, gridemst_error *err)
{
    (void)d, (void)p, (void)to, (void)threads;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to keep a tree on in a build without CUDA");
}

int gemst_devices_take_edges(gemst_devices *d, int p, void *edges, int64_t m, gemst_parts_edge *to, int threads,
                             gridemst_error *err)
{
    (void)d, (void)p, (void)edges, (void)m, (void)to, (void)threads;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to take edges from in a build without CUDA");
}

void gemst_devices_ready_tree(gemst_devices *d, int64_t m, int threads)
{
    (void)d, (void)m, (void)threads;
}

int gemst_devices_share_edges(gemst_devices *d, gemst_tree *tree, gridemst_error *err)
{
    (void)d, (void)tree;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to leave a tree on in a build without CUDA");
}

int gemst_devices_assemble(gemst_devices *d, const gemst_gid_edge *boundary, int64_t n_boundary, int64_t n_points,
                           double scale, int threads, int keep, gemst_tree *tree, gridemst_error *err)
{
    (void)d, (void)boundary, (void)n_boundary, (void)n_points, (void)scale, (void)threads, (void)keep, (void)tree;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "no devices to assemble a tree on in a build without CUDA");
}
