/* The inner points' cells on the host (border_cells.h). */
#include "parts/border_cells.h"

#include <stdlib.h>
#include <string.h>

#include "cpu/radix_sort.h"

int gemst_border_cells_of(const uint64_t *key, const uint32_t *comp, int64_t m, int threads,
                          gemst_inner_cells *cells)
{
    *cells = (gemst_inner_cells){NULL, NULL, NULL, 0};
    const size_t room = (size_t)(m > 0 ? m : 1);
    uint64_t *sorted = malloc(sizeof *sorted * room), *sorted_tmp = malloc(sizeof *sorted_tmp * room);
    uint32_t *at = malloc(sizeof *at * room), *at_tmp = malloc(sizeof *at_tmp * room);
    uint32_t *lo = malloc(sizeof *lo * room), *hi = malloc(sizeof *hi * room);
    int rc = sorted && sorted_tmp && at && at_tmp && lo && hi ? 0 : -1;
    if (rc == 0 && m > 0) {
        memcpy(sorted, key, sizeof *sorted * (size_t)m);
        for (int64_t k = 0; k < m; k++)
            at[k] = (uint32_t)k;
        rc = gemst_radix_sort(sorted, at, (size_t)m, 64, sorted_tmp, at_tmp, threads);
    }
    int64_t n = 0;
    for (int64_t k = 0; rc == 0 && k < m; k++) { /* each run of one key: a cell */
        const uint32_t c = comp[at[k]];
        if (k == 0 || sorted[k] != sorted[k - 1]) {
            sorted[n] = sorted[k];
            lo[n] = hi[n] = c;
            n++;
        }
        lo[n - 1] = c < lo[n - 1] ? c : lo[n - 1];
        hi[n - 1] = c > hi[n - 1] ? c : hi[n - 1];
    }
    free(sorted_tmp);
    free(at);
    free(at_tmp);
    if (rc != 0) {
        free(sorted);
        free(lo);
        free(hi);
        return -1;
    }
    *cells = (gemst_inner_cells){sorted, lo, hi, n};
    return 0;
}

/* A cell's least and greatest component, as two points of it: the merged
 * cell's are the least and greatest over every part's. */
int gemst_border_cells_merge(const gemst_inner_cells *part, int n_parts, int threads, gemst_inner_cells *merged)
{
    int64_t rows = 0;
    for (int p = 0; p < n_parts; p++)
        rows += 2 * part[p].n;
    const size_t room = (size_t)(rows > 0 ? rows : 1);
    uint64_t *key = malloc(sizeof *key * room);
    uint32_t *comp = malloc(sizeof *comp * room);
    int rc = key && comp ? 0 : -1;
    int64_t at = 0;
    for (int p = 0; rc == 0 && p < n_parts; p++) {
        const int64_t n = part[p].n;
        if (n == 0)
            continue;
        memcpy(key + at, part[p].key, sizeof *key * (size_t)n);
        memcpy(key + at + n, part[p].key, sizeof *key * (size_t)n);
        memcpy(comp + at, part[p].lo, sizeof *comp * (size_t)n);
        memcpy(comp + at + n, part[p].hi, sizeof *comp * (size_t)n);
        at += 2 * n;
    }
    if (rc == 0)
        rc = gemst_border_cells_of(key, comp, rows, threads, merged);
    free(key);
    free(comp);
    return rc;
}

void gemst_border_cells_free(gemst_inner_cells *cells)
{
    free((void *)cells->key);
    free((void *)cells->lo);
    free((void *)cells->hi);
    *cells = (gemst_inner_cells){NULL, NULL, NULL, 0};
}

int gemst_border_table_make(const gemst_inner_cells *cells, int threads, gemst_inner_table *table)
{
    const int bits = gemst_hash_bits((uint64_t)cells->n);
    const size_t slots = (size_t)1 << bits;
    uint64_t *key = malloc(sizeof *key * slots);
    uint32_t *lo = malloc(sizeof *lo * slots), *hi = malloc(sizeof *hi * slots);
    *table = (gemst_inner_table){key, lo, hi, bits};
    if (!key || !lo || !hi) {
        gemst_border_table_free(table);
        return -1;
    }
    const int64_t n = cells->n;
    (void)threads;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (size_t k = 0; k < slots; k++)
            key[k] = GEMST_HASH_FREE;
#pragma omp for schedule(static)
        for (int64_t c = 0; c < n; c++) { /* the keys are distinct: each takes a slot of its own */
            int taken;
            const uint32_t slot = gemst_hash_slot(key, bits, cells->key[c], &taken);
            lo[slot] = cells->lo[c];
            hi[slot] = cells->hi[c];
        }
    }
    return 0;
}

void gemst_border_table_free(gemst_inner_table *table)
{
    free((void *)table->key);
    free((void *)table->lo);
    free((void *)table->hi);
    *table = (gemst_inner_table){NULL, NULL, NULL, 0};
}
