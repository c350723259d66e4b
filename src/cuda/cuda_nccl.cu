/* The exchanges of a solve over several devices over NCCL (the
 * declarations in cuda_devices.cuh): one process holds a communicator for
 * every device, made for all of them at once by ncclCommInitAll.  In a
 * build without NCCL, what stands in: none, so that the exchanges go by
 * copies (cuda_devices.cu). */
#include <stdlib.h>

#include "cuda/cuda_devices.cuh"

#ifdef GRIDEMST_HAVE_NCCL
#include <nccl.h>

struct gemst_nccl {
    ncclComm_t *comm;
    int broken; /* a call failed: the communicators are aborted, not destroyed */
};

/* An NCCL call that failed: GRIDEMST_ERR_CUDA naming it, and the
 * communicators broken. */
static int nccl_fail(gemst_devices *d, gridemst_error *err, ncclResult_t r, const char *call)
{
    d->nccl->broken = 1;
    return gemst_fail(err, GRIDEMST_ERR_CUDA, "NCCL error in %s: %s", call, ncclGetErrorString(r));
}

/* Returns from the enclosing function (with d and err) when an NCCL call
 * fails. */
#define GEMST_NCCL(call)                                                                                          \
    do {                                                                                                          \
        ncclResult_t gemst_r_ = (call);                                                                           \
        if (gemst_r_ != ncclSuccess)                                                                              \
            return nccl_fail(d, err, gemst_r_, #call);                                                           \
    } while (0)

int gemst_nccl_in_build(void)
{
    return 1;
}

int gemst_nccl_open(gemst_devices *d, gridemst_error *err)
{
    struct gemst_nccl *n = (struct gemst_nccl *)calloc(1, sizeof *n);
    ncclComm_t *comm = (ncclComm_t *)calloc((size_t)d->count, sizeof *comm);
    if (!n || !comm) {
        free(n);
        free(comm);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    }
    /* NCCL's NVLink multicast (NVLS) stays off: set before the first
     * communicator, unless the caller chose otherwise. */
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    int previous = 0;
    cudaGetDevice(&previous);
    const ncclResult_t r = ncclCommInitAll(comm, d->count, d->ordinal);
    cudaSetDevice(previous);
    if (r != ncclSuccess) {
        free(n);
        free(comm);
        return gemst_fail(err, GRIDEMST_ERR_CUDA, "NCCL could not join %d devices (ncclCommInitAll): %s", d->count,
                          ncclGetErrorString(r));
    }
    n->comm = comm;
    d->nccl = n;
    return GRIDEMST_OK;
}

void gemst_nccl_close(gemst_devices *d)
{
    struct gemst_nccl *n = d->nccl;
    if (!n)
        return;
    for (int p = 0; p < d->count; p++)
        n->broken ? ncclCommAbort(n->comm[p]) : ncclCommDestroy(n->comm[p]);
    free(n->comm);
    free(n);
    d->nccl = NULL;
}

int gemst_nccl_error(gemst_devices *d, int p, gridemst_error *err)
{
    ncclResult_t async = ncclSuccess;
    GEMST_NCCL(ncclCommGetAsyncError(d->nccl->comm[p], &async));
    if (async != ncclSuccess && async != ncclInProgress)
        return nccl_fail(d, err, async, "a transfer between devices");
    return GRIDEMST_OK;
}

int gemst_nccl_gather_rows(gemst_devices *d, char *const *at, size_t row, gridemst_error *err)
{
    GEMST_NCCL(ncclGroupStart());
    ncclResult_t r = ncclSuccess;
    for (int p = 0; p < d->count && r == ncclSuccess; p++)
        r = ncclAllGather(at[p] + row * p, at[p], row, ncclInt8, d->nccl->comm[p], gemst_devices_stream(d, p));
    const ncclResult_t end = ncclGroupEnd();
    GEMST_NCCL(r);
    GEMST_NCCL(end);
    return GRIDEMST_OK;
}

int gemst_nccl_transfer(gemst_devices *d, const int64_t *count, int gather, const gemst_device_records *kinds,
                        int n_kinds, gridemst_error *err)
{
    const int P = d->count;
    ncclComm_t *comm = d->nccl->comm;
    GEMST_NCCL(ncclGroupStart());
    ncclResult_t r = ncclSuccess;
    for (int k = 0; k < n_kinds; k++)
        for (int s = 0; s < P && r == ncclSuccess; s++)
            for (int p = 0; p < P && r == ncclSuccess; p++) {
                const gemst_device_records *x = &kinds[k];
                const size_t out = x->size * (size_t)count[(size_t)s * P + p],
                             in = x->size * (size_t)count[(size_t)p * P + s];
                const cudaStream_t stream = gemst_devices_stream(d, s);
                if (p != s && out)
                    r = ncclSend(x->send[s] + gemst_send_offset(count, P, x->size, gather, s, p), out, ncclInt8, p,
                                 comm[s], stream);
                if (r == ncclSuccess && p != s && in)
                    r = ncclRecv(x->recv[s] + gemst_recv_offset(count, P, x->size, p, s), in, ncclInt8, p, comm[s],
                                 stream);
            }
    const ncclResult_t end = ncclGroupEnd();
    GEMST_NCCL(r);
    GEMST_NCCL(end);
    return GRIDEMST_OK;
}

#else /* no NCCL: every exchange goes by copies, and none of these is called */

int gemst_nccl_in_build(void)
{
    return 0;
}

static int no_nccl(gridemst_error *err)
{
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "an exchange over NCCL in a build without NCCL");
}

int gemst_nccl_open(gemst_devices *d, gridemst_error *err)
{
    (void)d;
    return no_nccl(err);
}

void gemst_nccl_close(gemst_devices *d)
{
    (void)d;
}

int gemst_nccl_error(gemst_devices *d, int p, gridemst_error *err)
{
    (void)d, (void)p;
    return no_nccl(err);
}

int gemst_nccl_gather_rows(gemst_devices *d, char *const *at, size_t row, gridemst_error *err)
{
    (void)d, (void)at, (void)row;
    return no_nccl(err);
}

int gemst_nccl_transfer(gemst_devices *d, const int64_t *count, int gather, const gemst_device_records *kinds,
                        int n_kinds, gridemst_error *err)
{
    (void)d, (void)count, (void)gather, (void)kinds, (void)n_kinds;
    return no_nccl(err);
}

#endif
