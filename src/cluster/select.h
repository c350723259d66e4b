/*
 * HDBSCAN*'s flat clusters from the condensed tree (condense.h), as
 * scikit-learn's sklearn/cluster/_hdbscan/_tree.pyx selects them: each
 * cluster's stability, the selection by excess of mass or by leaves,
 * cluster_selection_epsilon, allow_single_cluster and max_cluster_size;
 * then each point's label and membership probability, and the GLOSH
 * outlier scores of the hdbscan package (Campello et al. 2015).
 */
#ifndef GEMST_SELECT_H
#define GEMST_SELECT_H

#include "cluster/condense.h"

/* Fills out's labels, probabilities, outlier scores, stabilities (before
 * the excess of mass takes its children's) and n_clusters, into arrays the
 * caller allocated: n each, and c->n_clusters stabilities.  Returns
 * GRIDEMST_OK, or an error code with *err when memory runs out. */
int gemst_select_clusters(const gemst_condensed *c, const gridemst_hdbscan_options *opt, gridemst_hdbscan_result *out,
                          gridemst_error *err);

#endif
