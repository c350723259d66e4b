/* What the gridemst tool does with the tree beyond writing it: the
 * single-linkage file and flat clusters (--linkage, --clusters, --cut). */
#ifndef GEMST_CLI_CLUSTERS_H
#define GEMST_CLI_CLUSTERS_H

#include <stdint.h>

#include "cli/args.h"

typedef struct cli_clusters {
    int64_t count;        /* clusters of at least --min-cluster-size points */
    int64_t noise_points; /* points labelled -1 */
} cli_clusters;

/* Whether --clusters or --cut was given. */
int cli_flat_clusters_asked(const cli_args *a);

/* Writes --linkage and, with --clusters or --cut, labels the points, fills
 * *c and writes --labels.  Returns GRIDEMST_OK or an error code with *err. */
int cli_cluster(const cli_args *a, const gridemst_result *res, cli_clusters *c, gridemst_error *err);

#endif
