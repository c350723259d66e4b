/* The devices of a partitioned solve over several GPUs (parts/devices.h),
 * and its exchanges: over NCCL (cuda_nccl.cu), or by CUDA copies where the
 * build has no NCCL or a device holds several parts. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "cuda/cuda_devices.cuh"

/* Exchange buffers a device keeps from one exchange to the next, up to
 * this size; larger ones go back at once, so that the parts' solves have
 * the memory. */
#define GEMST_KEEP_BUFFER ((size_t)64 << 20)

static cudaStream_t stream_of(const gemst_devices *d, int p)
{
    return gemst_devices_stream(d, p);
}

extern "C" gridemst_context *gemst_devices_context(const gemst_devices *d, int p)
{
    return d->ctx[p];
}

extern "C" void gemst_devices_name(const gemst_devices *d, char *name, size_t size)
{
    int alike = 1, distinct = 0;
    for (int p = 0; p < d->count; p++) {
        alike &= strcmp(d->ctx[p]->device_name, d->ctx[0]->device_name) == 0;
        int first = 1; /* the first part on its device */
        for (int q = 0; q < p; q++)
            first &= d->ordinal[q] != d->ordinal[p];
        distinct += first;
    }
    if (alike && distinct == d->count) {
        snprintf(name, size, "%d x %s", d->count, d->ctx[0]->device_name);
        return;
    }
    if (alike) { /* devices holding several parts */
        snprintf(name, size, "%d x %s, %d parts", distinct, d->ctx[0]->device_name, d->count);
        return;
    }
    size_t at = 0;
    for (int p = 0; p < d->count && at < size; p++)
        at += (size_t)snprintf(name + at, size - at, "%s%s", p ? ", " : "", d->ctx[p]->device_name);
}

/* Frees device p's buffers and lets its context go. */
static void release_device(gemst_devices *d, int p)
{
    if (cudaSetDevice(d->ordinal[p]) == cudaSuccess) {
        if (d->buf && d->buf[p])
            cudaFree(d->buf[p]);
        if (d->part) {
            gemst_dfree_all(&d->part[p].mem);
            gemst_dfree_all(&d->part[p].peer_mem);
        }
    }
    if (d->ctx[p])
        gemst_context_release(d->ctx[p]);
    (void)cudaGetLastError(); /* teardown: nothing to report to */
}

/* Turns on each device's access to the others' memory, where the devices
 * can and it is off: the copies between them then go over the devices' own
 * links (NVLink, or PCIe peer to peer), not through host memory.  What this
 * turned on is turned off at the close (peer_access_off), so the caller's
 * contexts are left as they were; where a pair cannot, its copies are staged
 * by the driver as before. */
static int peer_access_on(gemst_devices *d, gridemst_error *err)
{
    for (int p = 0; p < d->count; p++) {
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        for (int q = 0; q < d->count; q++) {
            int can = 0, earlier = 0; /* q's device already seen */
            for (int r = 0; r < q; r++)
                earlier |= d->ordinal[r] == d->ordinal[q];
            if (earlier || d->ordinal[q] == d->ordinal[p])
                continue;
            GEMST_CU(cudaDeviceCanAccessPeer(&can, d->ordinal[p], d->ordinal[q]));
            if (!can)
                continue;
            const cudaError_t e = cudaDeviceEnablePeerAccess(d->ordinal[q], 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled) {
                (void)cudaGetLastError();
                continue;
            }
            GEMST_CU(e);
            d->peer_on[p][q] = 1;
        }
    }
    return GRIDEMST_OK;
}

static void peer_access_off(gemst_devices *d)
{
    for (int p = 0; p < d->count; p++)
        for (int q = 0; q < d->count; q++)
            if (d->peer_on[p][q] && cudaSetDevice(d->ordinal[p]) == cudaSuccess)
                cudaDeviceDisablePeerAccess(d->ordinal[q]);
    (void)cudaGetLastError(); /* teardown: nothing to report to */
}

extern "C" void gemst_devices_close(gemst_devices *d)
{
    if (!d)
        return;
    gemst_host_tree_discard(&d->room); /* unless a tree took it */
    int previous = 0;
    cudaGetDevice(&previous);
    gemst_nccl_close(d);
    peer_access_off(d);
    if (d->ctx)
        gemst_each_device_at_once(d->count, [d](int p) { release_device(d, p); });
    (void)cudaGetLastError();
    cudaSetDevice(previous);
    free(d->ordinal);
    free(d->ctx);
    free(d->buf);
    free(d->cap);
    free(d->part);
    free(d);
}

/* Device p's context, and its part's allocations from the context's pool. */
static int open_device(gemst_devices *d, int p, gridemst_error *err)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.device = d->ordinal[p];
    GEMST_TRY(gemst_context_for_solve(&o, &d->ctx[p], err));
    gemst_dmem_init(&d->part[p].mem, (cudaMemPool_t)d->ctx[p]->pool, stream_of(d, p));
    gemst_dmem_init(&d->part[p].peer_mem, NULL, stream_of(d, p));
    return GRIDEMST_OK;
}

extern "C" int gemst_devices_open(const int *ordinal, int count, gemst_devices **out, gridemst_error *err)
{
    *out = NULL;
    gemst_devices *d = (gemst_devices *)calloc(1, sizeof *d);
    if (!d)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    d->count = count;
    d->ordinal = (int *)calloc((size_t)count, sizeof *d->ordinal);
    d->ctx = (gridemst_context **)calloc((size_t)count, sizeof *d->ctx);
    d->buf = (void **)calloc((size_t)count, sizeof *d->buf);
    d->cap = (size_t *)calloc((size_t)count, sizeof *d->cap);
    d->part = (struct gemst_device_part *)calloc((size_t)count, sizeof *d->part);
    int rc = d->ordinal && d->ctx && d->buf && d->cap && d->part
                 ? GRIDEMST_OK
                 : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    if (rc == GRIDEMST_OK) {
        int made[GEMST_MAX_DEVICES];
        gridemst_error why[GEMST_MAX_DEVICES];
        for (int p = 0; p < count; p++)
            d->ordinal[p] = ordinal[p];
        gemst_each_device_at_once(count, [&](int p) { made[p] = open_device(d, p, &why[p]); });
        for (int p = 0; p < count && rc == GRIDEMST_OK; p++)
            if (made[p] != GRIDEMST_OK) {
                rc = made[p];
                if (err)
                    *err = why[p];
            }
    }
    for (int p = 0; p < count && rc == GRIDEMST_OK; p++)
        for (int q = 0; q < p; q++)
            d->by_copies |= d->ordinal[q] == d->ordinal[p];
    d->by_copies |= !gemst_nccl_in_build();
    if (rc == GRIDEMST_OK && !d->by_copies)
        rc = gemst_nccl_open(d, err);
    if (rc == GRIDEMST_OK && d->by_copies)
        rc = peer_access_on(d, err);
    if (rc != GRIDEMST_OK) {
        gemst_devices_close(d);
        return rc;
    }
    *out = d;
    return GRIDEMST_OK;
}

/* Device p's exchange buffer of at least `bytes` (the current device is
 * p's). */
static int buffer(gemst_devices *d, int p, size_t bytes, char **out, gridemst_error *err)
{
    if (bytes > d->cap[p]) {
        if (d->buf[p])
            GEMST_CU(cudaFree(d->buf[p]));
        d->buf[p] = NULL;
        d->cap[p] = 0;
        GEMST_CU(cudaMalloc(&d->buf[p], bytes));
        d->cap[p] = bytes;
    }
    *out = (char *)d->buf[p];
    return GRIDEMST_OK;
}

/* After an exchange: a buffer too large to keep goes back. */
static int trim(gemst_devices *d, int p, gridemst_error *err)
{
    if (d->cap[p] <= GEMST_KEEP_BUFFER)
        return GRIDEMST_OK;
    GEMST_CU(cudaSetDevice(d->ordinal[p]));
    GEMST_CU(cudaFree(d->buf[p]));
    d->buf[p] = NULL;
    d->cap[p] = 0;
    return GRIDEMST_OK;
}

/* Waits for every device's stream, watching NCCL's own errors meanwhile
 * (gemst_nccl_error). */
static int wait_all(gemst_devices *d, gridemst_error *err)
{
    for (int p = 0; p < d->count; p++) {
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        for (;;) {
            cudaError_t e = cudaStreamQuery(stream_of(d, p));
            if (e == cudaSuccess)
                break;
            if (e != cudaErrorNotReady)
                GEMST_CU(e);
            if (d->nccl)
                GEMST_TRY(gemst_nccl_error(d, p, err));
            const struct timespec pause = {0, 20000};
            nanosleep(&pause, NULL);
        }
    }
    return GRIDEMST_OK;
}

/* Every part's stream waits for what is queued on every other's: a part's
 * copies from another's buffers, queued on its own stream next, then start
 * once the other has written them. */
static int streams_meet(gemst_devices *d, gridemst_error *err)
{
    const int P = d->count;
    cudaEvent_t queued[GEMST_MAX_DEVICES] = {0};
    cudaError_t e = cudaSuccess;
    for (int p = 0; p < P && e == cudaSuccess; p++) {
        e = cudaSetDevice(d->ordinal[p]);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&queued[p], cudaEventDisableTiming);
        if (e == cudaSuccess)
            e = cudaEventRecord(queued[p], stream_of(d, p));
    }
    for (int p = 0; p < P && e == cudaSuccess; p++) {
        e = cudaSetDevice(d->ordinal[p]);
        for (int s = 0; s < P && e == cudaSuccess; s++)
            if (s != p)
                e = cudaStreamWaitEvent(stream_of(d, p), queued[s], 0);
    }
    for (int p = 0; p < P; p++) /* the waits queued keep what they need */
        if (queued[p] && cudaSetDevice(d->ordinal[p]) == cudaSuccess)
            cudaEventDestroy(queued[p]);
    if (e != cudaSuccess)
        return gemst_cuda_fail(err, e, "ordering the parts' streams for their copies", __FILE__, __LINE__);
    return GRIDEMST_OK;
}

/* Queues on part p's stream the copy of `bytes` from part s's buffer `from`
 * into p's `to` (the current device is p's). */
static int copy_from(gemst_devices *d, int p, char *to, int s, const char *from, size_t bytes,
                     gridemst_error *err)
{
    GEMST_CU(cudaMemcpyPeerAsync(to, d->ordinal[p], from, d->ordinal[s], bytes, stream_of(d, p)));
    return GRIDEMST_OK;
}

/* Row s (`row` bytes at at[s] + row s) of every part to every other part,
 * at the same place in its buffer at[p]: over NCCL, or by copies. */
static int gather_rows(gemst_devices *d, char *const *at, size_t row, gridemst_error *err)
{
    const int P = d->count;
    if (!d->by_copies) {
        GEMST_TRY(gemst_nccl_gather_rows(d, at, row, err));
        return wait_all(d, err);
    }
    GEMST_TRY(streams_meet(d, err));
    for (int p = 0; p < P; p++) {
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        for (int s = 0; s < P; s++)
            if (s != p)
                GEMST_TRY(copy_from(d, p, at[p] + row * s, s, at[s] + row * s, row, err));
    }
    return wait_all(d, err);
}

int gemst_devices_send_counts(gemst_devices *d, const int64_t *all, int width, gridemst_error *err)
{
    const int P = d->count;
    const size_t row = sizeof *all * (size_t)width;
    char *at[GEMST_MAX_DEVICES];
    for (int p = 0; p < P; p++) {
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        GEMST_TRY(buffer(d, p, row * P, &at[p], err));
        GEMST_CU(cudaMemcpyAsync(at[p] + row * p, all + (size_t)width * p, row, cudaMemcpyHostToDevice,
                                 stream_of(d, p)));
    }
    GEMST_TRY(gather_rows(d, at, row, err));
    int64_t *got = (int64_t *)malloc(row * P);
    if (!got)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    int rc = GRIDEMST_OK;
    for (int p = 0; p < P && rc == GRIDEMST_OK; p++) {
        cudaError_t e = cudaSetDevice(d->ordinal[p]);
        if (e == cudaSuccess)
            e = cudaMemcpy(got, at[p], row * P, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            rc = gemst_cuda_fail(err, e, "reading the exchanged counts", __FILE__, __LINE__);
        else if (memcmp(got, all, row * P) != 0)
            rc = gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the exchange gave CUDA device %d other counts than the parts sent",
                            d->ordinal[p]);
    }
    free(got);
    return rc;
}

/* gemst_devices_transfer's records between parts, each part copying what
 * the others have for it. */
static int transfer_by_copies(gemst_devices *d, const int64_t *count, int gather, const gemst_device_records *kinds,
                              int n_kinds, gridemst_error *err)
{
    const int P = d->count;
    GEMST_TRY(streams_meet(d, err));
    for (int p = 0; p < P; p++) {
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        for (int k = 0; k < n_kinds; k++)
            for (int s = 0; s < P; s++) {
                const gemst_device_records *x = &kinds[k];
                const size_t in = x->size * (size_t)count[(size_t)s * P + p];
                if (s != p && in)
                    GEMST_TRY(copy_from(d, p, x->recv[p] + gemst_recv_offset(count, P, x->size, s, p), s,
                                        x->send[s] + gemst_send_offset(count, P, x->size, gather, s, p), in, err));
            }
    }
    return wait_all(d, err);
}

int gemst_devices_transfer(gemst_devices *d, const int64_t *count, int gather, const gemst_device_records *kinds,
                           int n_kinds, gridemst_error *err)
{
    const int P = d->count;
    for (int p = 0; p < P; p++) {
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        for (int k = 0; k < n_kinds; k++) {
            const size_t size = kinds[k].size, own = size * (size_t)count[(size_t)p * P + p];
            if (own) /* a part's records for itself stay on its device */
                GEMST_CU(cudaMemcpyAsync(kinds[k].recv[p] + gemst_recv_offset(count, P, size, p, p),
                                         kinds[k].send[p] + gemst_send_offset(count, P, size, gather, p, p), own,
                                         cudaMemcpyDeviceToDevice, stream_of(d, p)));
        }
    }
    if (d->by_copies)
        return transfer_by_copies(d, count, gather, kinds, n_kinds, err);
    GEMST_TRY(gemst_nccl_transfer(d, count, gather, kinds, n_kinds, err));
    return wait_all(d, err);
}

/* The records of host memory, after their counts: part s's for part p,
 * `size` bytes each, count[s * P + p] of them at send[s] + send_offset,
 * land on device p after those from the parts before s, and come back
 * into recv[p] (room for them all; NULL: not wanted). */
static int exchange(gemst_devices *d, const void *const *send, const int64_t *count, size_t size, int gather,
                    void *const *recv, gridemst_error *err)
{
    const int P = d->count;
    gemst_device_records rec;
    rec.size = size;
    size_t in_bytes[GEMST_MAX_DEVICES];
    for (int p = 0; p < P; p++) {
        size_t out_bytes = gather ? size * (size_t)count[(size_t)p * P] : gemst_send_offset(count, P, size, 0, p, P);
        in_bytes[p] = gemst_recv_offset(count, P, size, P, p);
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        GEMST_TRY(buffer(d, p, out_bytes + in_bytes[p] + 1, &rec.send[p], err));
        rec.recv[p] = rec.send[p] + out_bytes;
        if (out_bytes)
            GEMST_CU(cudaMemcpyAsync(rec.send[p], send[p], out_bytes, cudaMemcpyHostToDevice, stream_of(d, p)));
    }
    GEMST_TRY(gemst_devices_transfer(d, count, gather, &rec, 1, err));
    for (int p = 0; p < P; p++) {
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        if (recv[p] && in_bytes[p])
            GEMST_CU(cudaMemcpy(recv[p], rec.recv[p], in_bytes[p], cudaMemcpyDeviceToHost));
        GEMST_TRY(trim(d, p, err));
    }
    return GRIDEMST_OK;
}

extern "C" int gemst_devices_alltoall(gemst_devices *d, const void *const *send, const int64_t *count, size_t size,
                                      void *const *recv, gridemst_error *err)
{
    gemst_device_scope keep; /* the caller's device back on return */
    GEMST_TRY(gemst_devices_send_counts(d, count, d->count, err));
    return exchange(d, send, count, size, 0, recv, err);
}

/* An all-gather is the exchange in which each part sends its records to
 * every part: every device then holds them all, and device 0's come back. */
extern "C" int gemst_devices_allgather(gemst_devices *d, const void *const *send, const int64_t *count, size_t size,
                                       void *out, gridemst_error *err)
{
    gemst_device_scope keep; /* the caller's device back on return */
    const int P = d->count;
    GEMST_TRY(gemst_devices_send_counts(d, count, 1, err));
    int64_t matrix[GEMST_MAX_DEVICES * GEMST_MAX_DEVICES];
    void *recv[GEMST_MAX_DEVICES];
    for (int s = 0; s < P; s++) {
        recv[s] = s == 0 ? out : NULL;
        for (int p = 0; p < P; p++)
            matrix[(size_t)s * P + p] = count[s];
    }
    return exchange(d, send, matrix, size, 1, recv, err);
}
