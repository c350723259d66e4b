/*
 * The exchanges between the parts of a partitioned solve.  Every step of
 * the solve is a function of one part's data and of what the exchanges
 * brought it; these are the only places where data crosses from part to
 * part, and they move records of a fixed size.  With the CPU's virtual
 * parts they copy between the parts' buffers; with one part per GPU
 * (devices.h) they run over NCCL, the counts first:
 *
 *   gemst_xchg_allgather   every part's records to every part: an
 *                          ncclAllGather of the counts, then ncclSend/ncclRecv
 *                          pairs in one group
 *   gemst_xchg_alltoall    each part's records for each other part: an
 *                          ncclAllGather of the counts' rows, then
 *                          ncclSend/ncclRecv pairs in one group
 *
 * One process holds every part's host data, so an all-gather's result is a
 * single buffer that every part reads.  The exchange counts the bytes that
 * change part, so that the statistics say what a distributed run moves.
 */
#ifndef GEMST_PARTS_EXCHANGE_H
#define GEMST_PARTS_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "gridemst.h"

typedef struct gemst_devices gemst_devices;

typedef struct gemst_xchg {
    int parts;
    gemst_devices *devices; /* one part per device (devices.h); NULL: virtual parts */
    int64_t bytes;      /* bytes that changed part, all exchanges so far */
    int64_t exchanges;  /* exchanges so far */
} gemst_xchg;

/*
 * Part p gives count[p] records of `size` bytes at send[p]; *out receives
 * all of them, part 0's first (malloc'd, freed by the caller; NULL when
 * there are none), and *total their number.
 */
int gemst_xchg_allgather(gemst_xchg *x, const void *const *send, const int64_t *count, size_t size, void **out,
                         int64_t *total, gridemst_error *err);

/*
 * Part s gives at send[s] the records for part 0, then those for part 1,
 * ..., count[s * parts + p] of them for part p.  Part p receives at recv[p]
 * (malloc'd, freed by the caller; NULL when empty) the records for it from
 * part 0, then from part 1, ..., recv_count[p] in all.  A part's records
 * for itself stay in place (they cross nothing).
 */
int gemst_xchg_alltoall(gemst_xchg *x, const void *const *send, const int64_t *count, size_t size, void **recv,
                        int64_t *recv_count, gridemst_error *err);

/*
 * Counts an all-to-all of `size`-byte records, count[s * parts + p] of
 * them from part s to part p, that moved between devices outside
 * gemst_xchg_alltoall (the partition on the devices, devices.h).
 */
void gemst_xchg_count_alltoall(gemst_xchg *x, const int64_t *count, size_t size);

#endif
