/*
 * A partitioned solve over several GPUs keeps each part's tree on the
 * part's device from its solve to the end (cuda/cuda_parts_assemble.cu):
 * the contraction marks its edges there, only the uncertain ones come to
 * host memory, and the whole set's tree is put together on the devices.
 *
 *   gemst_devices_keep_tree     part p's tree as its solve left it on its
 *                               device (gemst_tree.part_edges: m edges in
 *                               the edge order, over the part's point
 *                               numbers), held until gemst_devices_close;
 *                               where it lies into *tree
 *   gemst_devices_tree_marks    m bytes on part p's device for the
 *                               contraction's marks of the tree's edges
 *                               (1: safe), held as long
 *   gemst_devices_tree_to_host  the tree copied into host memory (room for
 *                               m edges), on `threads` host threads, where
 *                               the contraction runs on the host
 *                               (GRIDEMST_SAFE_EDGES=kruskal)
 *   gemst_devices_take_edges    m edges (gemst_parts_edge) that a solve on
 *                               part p's device left in its pool
 *                               (gemst_tree.part_edges) copied into host
 *                               memory (to), on `threads` host threads,
 *                               and freed there
 *   gemst_devices_ready_tree    starts making ready the host array of the
 *                               whole set's tree, m edges (host_tree.h:
 *                               registered with CUDA by a thread of its
 *                               own while the devices solve)
 *   gemst_devices_assemble      the tree of the whole set, n_points - 1
 *                               edges in the result's (w, u, v) order, into
 *                               that array, which tree takes (edges,
 *                               host_registered, host_capacity), or with
 *                               `keep` left on the devices, a share each
 *                               (tree->share, one a device, in order; the
 *                               host array is then not readied); with its
 *                               n_edges and total_weight; finished
 *   gemst_devices_share_edges   a finished tree in host memory (edges from
 *                               gemst_edges_alloc, freed here) put on the
 *                               devices as their shares, the same number of
 *                               edges each but for rounding: a device result
 *                               of a tree the host put together (parts of
 *                               fewer than 2 points, or the safe edges
 *                               marked on the host)
 *
 * The assembly is a sample sort of the edges across the devices.  Each
 * device turns its part's safe edges into the result's ids (the part's
 * ids stay on its device) and lengths, w = sqrt(d2) / scale, correctly
 * rounded there as on the host; they come in the edge order, which is
 * the (w, u, v) order but where distinct squared lengths share a square
 * root, and those runs are sorted.  Regular samples of every device's
 * edges, gathered on the host, give P - 1 splitters in the (w, u, v)
 * order; each device sends every other its edges in that device's range
 * over NCCL, with the boundary's edges (host memory, the boundary's ids)
 * in that range from the host, merges what it received, and copies it to
 * its place in the array, or keeps it as its share of the tree: three
 * arrays from its context's pool, which the share holds until the result
 * is freed (the devices' closing then gives back the rest of the pool).  Every edge is where a sort of the whole tree
 * puts it: the bytes are those of the host's assembly.  The total weight
 * is summed in the library's order (GEMST_TOTAL_GROUP, common.h): each
 * device adds the groups of lengths that lie whole in its share, the host
 * the few that straddle two shares, then the groups' sums
 * (result_edges.h).
 *
 * A CUDA or NCCL failure is GRIDEMST_ERR_CUDA, running out of device
 * memory GRIDEMST_ERR_DEVICE_MEMORY.  In a build without NCCL the calls
 * fail with GRIDEMST_ERR_INTERNAL (no solve over several devices gets
 * there).
 */
#ifndef GEMST_PARTS_DEVICE_ASSEMBLE_H
#define GEMST_PARTS_DEVICE_ASSEMBLE_H

#include "parts/devices.h"
#include "parts/parts.h"

#ifdef __cplusplus
extern "C" {
#endif

int gemst_devices_keep_tree(gemst_devices *d, int p, void *edges, int64_t m, const gemst_parts_edge **tree,
                            gridemst_error *err);
int gemst_devices_tree_marks(gemst_devices *d, int p, uint8_t **marks, gridemst_error *err);
int gemst_devices_tree_to_host(gemst_devices *d, int p, gemst_parts_edge *to, int threads, gridemst_error *err);
int gemst_devices_take_edges(gemst_devices *d, int p, void *edges, int64_t m, gemst_parts_edge *to, int threads,
                             gridemst_error *err);
void gemst_devices_ready_tree(gemst_devices *d, int64_t m, int threads);
int gemst_devices_share_edges(gemst_devices *d, gemst_tree *tree, gridemst_error *err);
int gemst_devices_assemble(gemst_devices *d, const gemst_gid_edge *boundary, int64_t n_boundary, int64_t n_points,
                           double scale, int threads, int keep, gemst_tree *tree, gridemst_error *err);

#ifdef __cplusplus
}
#endif

#endif
