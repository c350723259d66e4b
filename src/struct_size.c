#include "struct_size.h"

#include <stdalign.h>
#include <string.h>

#include "common.h"

const gemst_struct_kind gemst_options_kind = {sizeof(gridemst_options), sizeof(size_t), alignof(gridemst_options),
                                              "gridemst_options"};
/* A result must hold what gridemst_result_free needs; its stats may be cut. */
const gemst_struct_kind gemst_result_kind = {sizeof(gridemst_result), offsetof(gridemst_result, stats),
                                             alignof(gridemst_result), "gridemst_result"};
const gemst_struct_kind gemst_hdbscan_options_kind = {sizeof(gridemst_hdbscan_options), sizeof(size_t),
                                                      alignof(gridemst_hdbscan_options), "gridemst_hdbscan_options"};
/* Every array the clustering allocates must reach the caller. */
const gemst_struct_kind gemst_hdbscan_result_kind = {sizeof(gridemst_hdbscan_result),
                                                     sizeof(gridemst_hdbscan_result),
                                                     alignof(gridemst_hdbscan_result), "gridemst_hdbscan_result"};

static size_t size_of(const void *caller)
{
    size_t size;
    memcpy(&size, caller, sizeof size);
    return size;
}

static int size_known(const gemst_struct_kind *kind, size_t size)
{
    return size >= kind->head && size % kind->align == 0 && size <= GEMST_STRUCT_SIZE_MAX;
}

int gemst_struct_init(const gemst_struct_kind *kind, void *caller, size_t size, const void *defaults)
{
    if (!caller || !size_known(kind, size))
        return GRIDEMST_ERR_INVALID_ARGUMENT;
    memcpy(caller, &size, sizeof size);
    gemst_struct_export(kind, caller, defaults);
    return GRIDEMST_OK;
}

int gemst_struct_check(const gemst_struct_kind *kind, const void *caller, gridemst_error *err)
{
    const size_t size = size_of(caller);
    if (!size_known(kind, size))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "%s.struct_size is %zu, not the size of any version of the struct (this library's is "
                          "%zu): set it with the struct's init function",
                          kind->name, size, kind->size);
    const unsigned char *bytes = caller;
    for (size_t k = kind->size; k < size; k++)
        if (bytes[k] != 0)
            return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                              "%s.struct_size is %zu, this library's %zu, and byte %zu beyond it is not zero: "
                              "a member this version of the library does not know is set",
                              kind->name, size, kind->size, k);
    return GRIDEMST_OK;
}

int gemst_struct_import(const gemst_struct_kind *kind, const void *caller, void *full, gridemst_error *err)
{
    int rc = gemst_struct_check(kind, caller, err);
    if (rc != GRIDEMST_OK)
        return rc;
    const size_t size = size_of(caller);
    memcpy((char *)full + sizeof size, (const char *)caller + sizeof size,
           (size < kind->size ? size : kind->size) - sizeof size);
    return GRIDEMST_OK;
}

void gemst_struct_export(const gemst_struct_kind *kind, void *caller, const void *full)
{
    const size_t size = size_of(caller);
    const size_t common = size < kind->size ? size : kind->size;
    memcpy((char *)caller + sizeof size, (const char *)full + sizeof size, common - sizeof size);
    memset((char *)caller + common, 0, size - common);
}
