/* What the gridemst tool does with the tree beyond writing it: the
 * single-linkage file, flat clusters (--linkage, --clusters, --cut) and
 * HDBSCAN* clusters (--hdbscan). */
#ifndef GEMST_CLI_CLUSTERS_H
#define GEMST_CLI_CLUSTERS_H

#include <stdint.h>

#include "cli/args.h"

typedef struct cli_clusters {
    int64_t count;        /* clusters of at least --min-cluster-size points (HDBSCAN*: selected) */
    int64_t noise_points; /* points labelled -1 */
    double ms;            /* the clustering's time, its files included */
} cli_clusters;

/* Whether --clusters, --cut or --hdbscan was given. */
int cli_clusters_asked(const cli_args *a);

/* Writes --linkage and, with --clusters, --cut or --hdbscan, labels the
 * points, fills *c and writes --labels (and HDBSCAN*'s other files).
 * Returns GRIDEMST_OK or an error code with *err. */
int cli_cluster(const cli_args *a, const gridemst_result *res, cli_clusters *c, gridemst_error *err);

#endif
