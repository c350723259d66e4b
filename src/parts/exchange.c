/* The exchanges of a partitioned solve: copies between the virtual parts
 * of one process, or NCCL's transfers between devices (devices.h), and the
 * count of bytes that change part. */
#include "parts/exchange.h"
#include "parts/devices.h"

#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "host_array.h"

int gemst_xchg_allgather(gemst_xchg *x, const void *const *send, const int64_t *count, size_t size, void **out,
                         int64_t *total, gridemst_error *err)
{
    const int P = x->parts;
    int64_t n = 0;
    for (int p = 0; p < P; p++)
        n += count[p];
    *out = NULL;
    *total = n;
    x->exchanges++;
    if (n == 0)
        return GRIDEMST_OK;
    char *buf = gemst_host_array(size * (size_t)n);
    if (!buf)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory gathering %lld records between parts",
                          (long long)n);
    size_t at = 0;
    for (int p = 0; p < P; p++) {
        if (count[p] > 0 && !x->devices)
            memcpy(buf + at, send[p], size * (size_t)count[p]);
        at += size * (size_t)count[p];
        x->bytes += (int64_t)size * count[p] * (P - 1); /* to each other part */
    }
    int rc = x->devices ? gemst_devices_allgather(x->devices, send, count, size, buf, err) : GRIDEMST_OK;
    if (rc != GRIDEMST_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    return GRIDEMST_OK;
}

/* Frees the receive buffers of parts 0 .. p - 1. */
static void free_received(void **recv, int p)
{
    for (int q = 0; q < p; q++) {
        free(recv[q]);
        recv[q] = NULL;
    }
}

void gemst_xchg_count_alltoall(gemst_xchg *x, const int64_t *count, size_t size)
{
    const int P = x->parts;
    x->exchanges++;
    for (int s = 0; s < P; s++)
        for (int p = 0; p < P; p++)
            if (s != p)
                x->bytes += (int64_t)size * count[(size_t)s * P + p];
}

int gemst_xchg_alltoall(gemst_xchg *x, const void *const *send, const int64_t *count, size_t size, void **recv,
                        int64_t *recv_count, gridemst_error *err)
{
    const int P = x->parts;
    for (int p = 0; p < P; p++) {
        recv_count[p] = 0;
        recv[p] = NULL;
        for (int s = 0; s < P; s++)
            recv_count[p] += count[(size_t)s * P + p];
    }
    for (int p = 0; p < P; p++) {
        if (recv_count[p] == 0)
            continue;
        char *buf = gemst_host_array(size * (size_t)recv_count[p]);
        if (!buf) {
            free_received(recv, p);
            return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY,
                              "out of host memory receiving %lld records from other parts", (long long)recv_count[p]);
        }
        size_t at = 0;
        for (int s = 0; s < P; s++) {
            const int64_t *row = count + (size_t)s * P;
            size_t before = 0; /* sender s's records for parts before p */
            for (int q = 0; q < p; q++)
                before += (size_t)row[q];
            if (row[p] > 0 && !x->devices)
                memcpy(buf + at, (const char *)send[s] + size * before, size * (size_t)row[p]);
            at += size * (size_t)row[p];
        }
        recv[p] = buf;
    }
    gemst_xchg_count_alltoall(x, count, size);
    int rc = x->devices ? gemst_devices_alltoall(x->devices, send, count, size, recv, err) : GRIDEMST_OK;
    if (rc != GRIDEMST_OK)
        free_received(recv, P);
    return rc;
}
