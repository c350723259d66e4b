/* The shares of a tree in device memory (gridemst_result_device_share). */
#include <stddef.h>

#include "common.h"
#include "context.h"
#include "struct_size.h"

/* The caller's result in the library's layout: 1, or 0 for one it cannot
 * read. */
static int import(const gridemst_result *caller, gridemst_result *result)
{
    gridemst_result_init(result);
    return caller && gemst_struct_import(&gemst_result_kind, caller, result, NULL) == GRIDEMST_OK;
}

/* A tree over several devices has its shares in its owner; one device's
 * tree is its device_edges, one share. */
static int shares_of(const gridemst_result *result)
{
    if (result->owner && result->owner->n_shares > 0)
        return result->owner->n_shares;
    return result->device_edges.u != NULL && result->n_edges > 0;
}

int gridemst_result_device_shares(const gridemst_result *caller)
{
    gridemst_result result;
    return import(caller, &result) ? shares_of(&result) : 0;
}

gridemst_status gridemst_result_device_share(const gridemst_result *caller, int k, gridemst_device_edges *edges,
                                             int64_t *first, int64_t *n_edges)
{
    gridemst_result result;
    if (!import(caller, &result) || !edges)
        return (gridemst_status)GRIDEMST_ERR_INVALID_ARGUMENT;
    const int shares = shares_of(&result);
    if (k < 0 || k >= shares)
        return (gridemst_status)GRIDEMST_ERR_INVALID_ARGUMENT;
    if (result.owner && result.owner->n_shares > 0) {
        const gemst_device_share *s = &result.owner->share[k];
        *edges = s->edges;
        if (first)
            *first = s->first;
        if (n_edges)
            *n_edges = s->n_edges;
    } else {
        *edges = result.device_edges;
        if (first)
            *first = 0;
        if (n_edges)
            *n_edges = result.n_edges;
    }
    return GRIDEMST_OK;
}
