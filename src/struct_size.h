/*
 * The struct_size rule of the public structs that grow (gridemst.h,
 * "Structs that grow"): a caller's struct is a prefix of the library's, or
 * the library's followed by zeros.  The library works on a full copy of
 * its own layout: imports bring the caller's members into it (the others
 * keep the copy's defaults), exports write back what the caller's struct
 * holds.
 */
#ifndef GEMST_STRUCT_SIZE_H
#define GEMST_STRUCT_SIZE_H

#include <stddef.h>

#include "gridemst.h"

/* Sizes above this are refused unread: no struct comes near it, and a
 * garbage size must not send the check through memory the caller does
 * not own. */
#define GEMST_STRUCT_SIZE_MAX ((size_t)1 << 16)

/* One growing struct: the library's size, the least a caller's may hold
 * (its head: members every caller must have), its alignment, and its name
 * for messages. */
typedef struct gemst_struct_kind {
    size_t size, head, align;
    const char *name;
} gemst_struct_kind;

extern const gemst_struct_kind gemst_options_kind, gemst_result_kind, gemst_hdbscan_options_kind,
    gemst_hdbscan_result_kind;

/* GRIDEMST_OK when *caller (a struct of that kind, struct_size first) has a
 * size the library can work with; else GRIDEMST_ERR_INVALID_ARGUMENT naming
 * the size and the struct. */
int gemst_struct_check(const gemst_struct_kind *kind, const void *caller, gridemst_error *err);

/* A *_init_size function: GRIDEMST_ERR_INVALID_ARGUMENT for a NULL caller
 * or a size that no version of the struct has; else sets the caller's
 * struct_size and exports *defaults into it. */
int gemst_struct_init(const gemst_struct_kind *kind, void *caller, size_t size, const void *defaults);

/* Checks *caller, then copies the members it holds over *full (which holds
 * the defaults). */
int gemst_struct_import(const gemst_struct_kind *kind, const void *caller, void *full, gridemst_error *err);

/* Writes *full into *caller (checked before) as far as the caller's struct
 * reaches, zeros the rest of it, and keeps its struct_size. */
void gemst_struct_export(const gemst_struct_kind *kind, void *caller, const void *full);

#endif
