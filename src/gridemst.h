/*
 * gridemst: exact Euclidean minimum spanning trees of 2D and 3D point sets,
 * on NVIDIA GPUs (CUDA) and on CPUs (OpenMP), with a uniform grid as spatial
 * index.
 *
 * This header is the whole public API.  Typical use:
 *
 *     gridemst_options opt;
 *     gridemst_result res = GRIDEMST_RESULT_INIT;
 *     gridemst_error err;
 *     gridemst_options_init(&opt);
 *     if (gridemst_solve(xyz, GRIDEMST_FLOAT64, n, 3, &opt, &res, &err) != GRIDEMST_OK) {
 *         fprintf(stderr, "gridemst: %s\n", err.message);
 *         return 1;
 *     }
 *     for (int64_t i = 0; i < res.n_edges; i++)
 *         use(res.edges[i].u, res.edges[i].v, res.edges[i].w);
 *     gridemst_result_free(&res);
 *
 * The tree is exact and deterministic.  Edges are totally ordered by
 * (squared distance, smaller endpoint id, larger endpoint id); under that
 * order the minimum spanning tree is unique, so every backend, strategy and
 * run returns the identical edge list.  Exact duplicate points are joined to
 * the duplicate with the smallest id by zero-length edges.
 *
 * Squared distances are evaluated as (dx dx + dy dy) + dz dz, every
 * operation rounded to the working precision (options.precision), on working
 * points:
 *   - GRIDEMST_PRECISION_DOUBLE: the coordinates as given, scaled by the
 *     power of two that brings the largest |coordinate| into [0.5, 1) (exact,
 *     barring underflow of coordinates below 2^-1022 times the largest).  The
 *     tree is the exact minimum spanning tree, under the edge order, of these
 *     squared distances in IEEE double, as a brute-force Prim in double on
 *     the scaled coordinates computes it.  Where double cannot hold a squared
 *     distance (two distinct points whose coordinates differ by less than
 *     about 2^-511 times the largest |coordinate|), the solve fails with
 *     GRIDEMST_ERR_INPUT and a message naming the two points: distinct
 *     points are never merged.
 *   - GRIDEMST_PRECISION_FLOAT: the coordinates translated to the
 *     bounding-box minimum, scaled by the power of two that brings the box's
 *     widest side into [0.5, 1), and rounded to float32.  The tree is the
 *     exact minimum spanning tree of these float32 points under float32
 *     squared distances (points equal in float32 are duplicates); distinct
 *     float32 points at float squared distance 0 (closer than 2^-75 times
 *     the box's widest side, near its minimum corner) fail with
 *     GRIDEMST_ERR_INPUT naming two of them.  Use double precision when
 *     near-equal distances must be told apart beyond float32 resolution.
 * Edge lengths are reported in the caller's units: sqrt(d2) divided by the
 * scale, in double.  A tree edge longer than the largest double fails with
 * GRIDEMST_ERR_INPUT.
 *
 * The library never prints and never ends the process: every failure is a
 * status code with a message in a caller-provided gridemst_error.  It keeps
 * no global state; concurrent calls from several threads are safe.  (A solve
 * over several devices sets one environment variable of NCCL's, unless the
 * caller set it: options.n_devices.)
 */
#ifndef GRIDEMST_H
#define GRIDEMST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GRIDEMST_BUILDING) && defined(__GNUC__)
#define GRIDEMST_API __attribute__((visibility("default")))
#else
#define GRIDEMST_API
#endif

/* GRIDEMST_VERSION_MAJOR, _MINOR, _PATCH and _STRING: the version of these
 * headers (gridemst_version() gives the library's). */
#include "gridemst_version.h"

/*
 * Structs that grow.  gridemst_options, gridemst_result (with the
 * gridemst_stats it ends with), gridemst_hdbscan_options and
 * gridemst_hdbscan_result start with `size_t struct_size`: the size of the
 * struct as the caller's program knows it.  A later version of the library
 * adds members to them only at their end (to gridemst_result only at the end
 * of its stats; to gridemst_tuning only in place of its reserved ints), past
 * the end of the older struct, so that each older layout is a prefix of the
 * newer ones.  Programs compiled against an older gridemst.h keep working
 * with a newer library, and the reverse, because the library:
 *   - reads and writes only the first struct_size bytes of the caller's
 *     struct: a member past them takes its default when the library reads
 *     the struct, and is not given back when it fills it;
 *   - takes a struct_size larger than its own when every byte past its own
 *     size is zero (the members it does not know are at their defaults);
 *   - refuses any other struct_size with GRIDEMST_ERR_INVALID_ARGUMENT and a
 *     message naming the struct: one below the struct's head (struct_size
 *     alone for options, the members before stats for gridemst_result,
 *     the whole struct for gridemst_hdbscan_result), not a multiple of the
 *     struct's alignment, or above 65536, and a larger one with a nonzero
 *     byte past the library's size.  gridemst_result_free and
 *     gridemst_hdbscan_free do nothing with such a struct.
 * So set struct_size before a struct goes to the library: the *_init
 * functions below do (gridemst_options_init, gridemst_result_init, or the
 * initializer GRIDEMST_RESULT_INIT, ...).  A binding from another language
 * declares the members it needs, in order, and sets struct_size to its
 * struct's size, e.g. a gridemst_result that ends before stats.  The other
 * public structs (gridemst_error, gridemst_edge, gridemst_merge,
 * gridemst_condensed_row and the structs inside the stats) never change.
 */

/* Status codes returned by every function that can fail. */
typedef enum gridemst_status {
    GRIDEMST_OK = 0,
    GRIDEMST_ERR_INVALID_ARGUMENT = 1, /* a bad option or argument */
    GRIDEMST_ERR_INPUT = 2,            /* bad point data: NaN/Inf, dimension */
    GRIDEMST_ERR_NO_MEMORY = 3,        /* host memory exhausted or too small */
    GRIDEMST_ERR_DEVICE_MEMORY = 4,    /* the job does not fit on the GPU */
    GRIDEMST_ERR_NO_DEVICE = 5,        /* CUDA asked for but not usable */
    GRIDEMST_ERR_CUDA = 6,             /* a CUDA call failed */
    GRIDEMST_ERR_UNSUPPORTED = 7,      /* valid request this build cannot do */
    GRIDEMST_ERR_INTERNAL = 8,         /* a bug: please report it */
    GRIDEMST_ERR_CANCELLED = 9         /* the progress callback asked the solve to stop */
} gridemst_status;

/* Error details: the code and a one-line message naming the problem. */
typedef struct gridemst_error {
    gridemst_status code;
    char message[512];
} gridemst_error;

typedef enum gridemst_dtype {
    GRIDEMST_FLOAT32 = 0,
    GRIDEMST_FLOAT64 = 1
} gridemst_dtype;

typedef enum gridemst_backend {
    GRIDEMST_BACKEND_AUTO = 0, /* CUDA when a device is present, else CPU; CPU too when the
                                  job does not fit in device memory (stats.note says so) */
    GRIDEMST_BACKEND_CPU = 1,
    GRIDEMST_BACKEND_CUDA = 2
} gridemst_backend;

/* Spatial index used for nearest-neighbour search (FindMin1).  Every
 * choice gives the identical tree; only the search differs. */
typedef enum gridemst_nns {
    GRIDEMST_NNS_GRID = 0, /* uniform grid, ring search with the prune strategy */
    GRIDEMST_NNS_BVH = 1,  /* linear BVH over Morton codes (Karras 2012) with the ArborX
                              single-tree traversal: subtree skipping by component and
                              Morton-neighbour bounds (Prokopenko et al. 2022), on
                              either backend (and gridemst_solve_device).  The
                              tuning.prune does not apply and is ignored (stats.prune
                              reads none); stats.cells is 0 */
    GRIDEMST_NNS_AUTO = 2  /* (default) on the CUDA backend the BVH below 100000 points,
                              else the grid, or the BVH when the points do not fill
                              their box evenly at the grid's cell size (clusters,
                              surfaces, curves, a varying density): the density
                              contrast of a sample of 65536 points above 1.5
                              (stats.density_contrast).  On
                              the CPU backend the BVH when the same sample's dimension,
                              measured at the finest cell size where 1024 pairs of its
                              points share a cell, is below 2.5 (curves, surfaces, sets
                              in the plane) and its density contrast above 1.5, else
                              the grid.  stats.nns and stats.prune say what ran */
} gridemst_nns;

/* Grid search strategy (Qiao & Creput 2021, section 3.3). */
typedef enum gridemst_prune {
    GRIDEMST_PRUNE_NONE = 0,    /* ring search for the nearest point of another component */
    GRIDEMST_PRUNE_DYNAMIC = 1, /* the same, restricted to slabs still open */
    GRIDEMST_PRUNE_STATIC = 2   /* slab-nearest candidates found once (default) */
} gridemst_prune;

/* How each component's shortest outgoing edge is selected (FindMin2). */
typedef enum gridemst_findmin2 {
    GRIDEMST_FINDMIN2_LIST = 0,  /* distributed linked list (paper, Alg. 3-4); one thread
                                    walks each component's list, slow on large components */
    GRIDEMST_FINDMIN2_ATOMIC = 1 /* 64-bit atomic minima per component (default) */
} gridemst_findmin2;

typedef enum gridemst_precision {
    GRIDEMST_PRECISION_FLOAT = 0,
    GRIDEMST_PRECISION_DOUBLE = 1
} gridemst_precision;

/* Where a solve leaves the tree (options.result). */
typedef enum gridemst_result_place {
    GRIDEMST_RESULT_HOST = 0,  /* result.edges, in host memory (default) */
    GRIDEMST_RESULT_DEVICE = 1 /* result.device_edges, in the memory of the CUDA device that
                                  solved: nothing but a few counters comes to the host.
                                  CUDA backend only (GRIDEMST_ERR_INVALID_ARGUMENT on the CPU
                                  backend; AUTO then means CUDA, with no fall back to the CPU).
                                  A solve over several devices (options.n_devices) leaves
                                  the tree spread over them in consecutive shares, one a
                                  device (gridemst_result_device_share); its
                                  result.device_edges arrays are then NULL */
} gridemst_result_place;

/*
 * A context that repeated CUDA solves reuse: the device, a stream, a memory
 * pool that keeps the device memory of earlier solves for the next ones,
 * the device's properties, and pinned host buffers.  A second solve of the
 * same or a smaller point set on a context takes no new device memory
 * (stats.device_bytes_reserved is 0).  Without a context (options.context
 * NULL) every solve makes one of its own and frees it before it returns.
 *
 * Thread safety: one solve at a time on a context; use one context per
 * thread for concurrent solves.  Results made on a context keep it alive:
 * gridemst_context_free may come before their gridemst_result_free, and
 * the context's memory goes back to the device when the last of them is
 * freed.  A solve on a freed context fails with
 * GRIDEMST_ERR_INVALID_ARGUMENT while results still hold it; after that
 * the pointer is dangling, as with free().
 */
typedef struct gridemst_context gridemst_context;

/* Progress report, called from the solving thread between phases: phase is
 * "grid" (the grid is built), "iteration" (a Boruvka iteration ended;
 * components = components left) or "edges" (the tree is being sorted).
 * A partitioned solve (options.partitions) reports its own phases instead:
 * "partition" (the points are split; components = the parts), "local tree"
 * (part number `iteration`, counted from 1, has its tree; components = its
 * points), "boundary" (a Boruvka iteration across the parts ended;
 * components = components left) and "edges". */
/*
 * The callback returns 0 to go on, or nonzero to stop the solve: it then
 * frees what it made, leaves the result empty and returns
 * GRIDEMST_ERR_CANCELLED (err names the phase).  Every report is a point
 * where the solve can stop, on either backend (the CUDA backend asks between
 * its kernels); a single Boruvka iteration is not interrupted.  Friends-of-
 * friends (gridemst_fof) reports "grid" and "iteration" the same way.
 */
typedef int (*gridemst_progress_fn)(void *ctx, const char *phase, int iteration, int64_t components);

/*
 * Knobs of the search that change how fast a solve runs, never its tree:
 * every setting gives the identical edge list.  gridemst_options_init()
 * sets the defaults, the library's own choice for each input, and nobody
 * needs to touch them but to measure the alternatives (gridemst-bench, and
 * the command line's --prune, --findmin2, --occupancy, --crowded and
 * --late-bvh).
 */
typedef struct gridemst_tuning {
    gridemst_prune prune;         /* default STATIC; grid only (ignored with nns BVH) */
    gridemst_findmin2 findmin2;   /* default ATOMIC */
    double cell_occupancy;        /* target mean points per grid cell; 0 = the backend's
                                     default (CPU 2, refined on skewed inputs; CUDA 3) */
    int64_t crowded_cell;         /* grid cells of more points than this get a grid of their
                                     own; 0 = the default (512) */
    int late_bvh;                 /* grid index with static pruning: the Boruvka iteration
                                     K >= 1 (counted from 0, as in iteration_ms; iteration 0
                                     always searches the grid) from which FindMin1
                                     searches a BVH over the grid's points instead of the grid;
                                     0 = the library's choice: on the CPU after an iteration
                                     whose fallback searched from 1/8 of the points and added
                                     an edge of 8 mean point spacings or more (clusters far
                                     apart merging), on CUDA never (its grid serves sets that
                                     fill their box evenly; nns AUTO gives the others the BVH);
                                     -1 = never.  The tree is the same either way.  Other
                                     strategies and nns BVH ignore it (but see min_samples). */
    int reserved[15];             /* zero (gridemst_options_init sets it; a solve refuses
                                     anything else): room for knobs to come, each with 0
                                     for its default, so that gridemst_options keeps its
                                     layout */
} gridemst_tuning;

/* Solver options; gridemst_options_init() fills in the defaults. */
typedef struct gridemst_options {
    size_t struct_size;           /* sizeof(gridemst_options) as the caller knows it (see
                                     "Structs that grow"); set by gridemst_options_init */
    gridemst_backend backend;     /* default AUTO */
    gridemst_nns nns;             /* default AUTO */
    gridemst_precision precision; /* default FLOAT */
    int threads;                  /* CPU threads (on the CUDA backend, those that copy large
                                     inputs from host memory to the device); 0 = OpenMP
                                     default */
    int device;                   /* CUDA device ordinal; default 0 */
    int64_t max_device_bytes;     /* CUDA: device memory the solve may use; 0 = what is free */
    int64_t max_host_bytes;       /* CPU: host memory the solve may use besides the result's
                                     edges; 0 = what the process may use when the solve
                                     starts, less those edges: the least of the
                                     available memory (MemAvailable), its cgroup's
                                     memory limit less its usage, and RLIMIT_AS and
                                     RLIMIT_DATA less what is in use.  A job that does
                                     not fit is refused (GRIDEMST_ERR_NO_MEMORY) before
                                     anything is allocated; see gridemst_host_bytes */
    gridemst_progress_fn progress; /* NULL: no reports */
    void *progress_ctx;           /* passed to progress */
    void *cuda_stream;            /* CUDA: a cudaStream_t of opt.device to work on, so that the
                                     solve follows the caller's work queued on it; NULL: a
                                     stream of the solve's own (or the context's) */
    gridemst_result_place result; /* default GRIDEMST_RESULT_HOST */
    gridemst_context *context;    /* CUDA: the context to solve on (device and stream come
                                     from it: device and cuda_stream must be left at their
                                     defaults or agree with it); NULL: one for this solve */
    int64_t min_samples;          /* 0 or 1 (default 0): the Euclidean tree.  k >= 2: the tree of
                                     HDBSCAN*'s mutual reachability, d(a, b) = max(core(a), core(b),
                                     |a - b|), where core(a) is the distance from a to its k-th
                                     nearest point counting a itself and its exact duplicates (as
                                     scikit-learn's min_samples; the hdbscan package's min_samples
                                     k is k + 1 here).  The tree is exact and ordered as the
                                     Euclidean one (by d, then the ids), duplicates included:
                                     each joins the point of smallest id at its core distance.
                                     k must not exceed the point count.  Both backends (the
                                     identical tree), device input and results included; not
                                     with partitions (GRIDEMST_ERR_UNSUPPORTED).  The
                                     slab pruning being unsound for this length, the grid index
                                     searches with prune none (stats.prune says so): it computes
                                     the core distances, then hands Boruvka to the late BVH from
                                     iteration 0, or tuning.late_bvh (stats.late_bvh_iteration;
                                     -1 keeps the grid's ring search). */
    int partitions;               /* split the points into this many spatial parts (at most
                                     64), solve each part's tree on its own, and join the
                                     parts along the edges that cross between them: the
                                     identical tree, computed the way a solve over several
                                     GPUs is (docs/partitioned.md).  On the CPU backend (AUTO
                                     then means CPU) the parts' trees run in turn in this
                                     process, the steps that join them for every part at
                                     once (threads shared among the parts); on the CUDA
                                     backend the parts are devices (n_devices below): with
                                     n_devices 0 or 1, all on the one device, as if it were
                                     named partitions times; with several devices, one a
                                     device named (partitions 0 or n_devices).
                                     0 or 1: one part, the plain solve */
    gridemst_tuning tuning;       /* how the search goes; the defaults suit every input */
    const int *devices;           /* with n_devices >= 1: the CUDA device ordinals, read during the
                                     call only, not kept.  NULL: devices 0 to n_devices - 1.  A
                                     device named k times holds k parts, whose solves share its
                                     memory; the exchanges then go by CUDA copies, not NCCL
                                     (which takes one rank a device): to try the partitioned
                                     solve on fewer GPUs than parts */
    int n_devices;                /* a solve over several GPUs of this host (CUDA backend; AUTO
                                     then means CUDA): the partitioned solve with part p on
                                     device devices[p], all parts' trees at once and the
                                     exchanges between parts over NCCL, one process driving
                                     every device (docs/partitioned.md).  The identical tree,
                                     in host memory, or with result DEVICE left on the
                                     devices, a share on each.  0 (default): one device, options.device;
                                     1: the one device devices[0]; k >= 2 (at most 64): k devices
                                     (partitions must be 0 or k); GRIDEMST_ALL_DEVICES: every
                                     device present (one device: the plain solve on it).  With
                                     two devices or more: device, cuda_stream and context must
                                     be left at their defaults, min_samples < 2,
                                     host input.  A library built without NCCL (configure
                                     --with-nccl) exchanges by CUDA copies.  NCCL's NVLink
                                     multicast is turned off (the environment variable
                                     NCCL_NVLS_ENABLE is set to 0 unless the caller set it).
                                     The environment variable GRIDEMST_HOST_COPY (touched, the
                                     default; staged; plain) picks how the parts' arrays are
                                     copied from the devices into host memory (the same bytes
                                     every way); any other value fails the solve with
                                     GRIDEMST_ERR_INVALID_ARGUMENT */
} gridemst_options;

/* options.n_devices: every CUDA device present. */
#define GRIDEMST_ALL_DEVICES (-1)

/* One tree edge: endpoints as 0-based indices into the caller's array,
 * u < v, and the Euclidean length w (in the caller's units). */
typedef struct gridemst_edge {
    int64_t u;
    int64_t v;
    double w;
} gridemst_edge;

/* The tree in device memory (GRIDEMST_RESULT_DEVICE): three arrays of
 * n_edges entries on CUDA device `device`, sorted like result.edges (or a
 * share of them: gridemst_result_device_share).  They belong to the result:
 * free them with gridemst_result_free, once the caller's own work on them
 * is done (the free is ordered on the stream the solve ran on; a solve over
 * several devices ran on streams of its own, so the caller's work on its
 * shares must have finished). */
typedef struct gridemst_device_edges {
    uint32_t *u;  /* smaller endpoint ids (the caller's 0-based indices) */
    uint32_t *v;  /* larger endpoint ids */
    double *w;    /* Euclidean lengths, in the caller's units */
    int device;   /* the CUDA device ordinal */
} gridemst_device_edges;

/* Timings in milliseconds, measured by the library. */
typedef struct gridemst_times {
    double total;     /* the whole solve */
    double upload;    /* host to device copy (CUDA only): from 256 MB of pageable memory
                         up, staged through pinned buffers on the threads (the
                         environment variable GRIDEMST_UPLOAD=plain makes it the
                         driver's single copy; staged, the default; any other value
                         fails with GRIDEMST_ERR_INVALID_ARGUMENT) */
    double grid;      /* bounding box, cell sort, duplicate removal, cell table (nns BVH:
                         Morton sort, duplicate removal, the tree's build) */
    double findmin1;  /* each point's nearest point in another component */
    double prepare;   /* static pruning's one search for candidates, or with options.min_samples
                         >= 2 the search for the core distances (part of findmin1) */
    double findmin2;  /* each component's shortest outgoing edge */
    double merge;     /* connect, union, flatten */
    double edges;     /* final sort of the edge list, its ties ordered and its total
                         weight summed (on the GPU for CUDA) */
    double download;  /* device to host copy of the tree (CUDA with a host result) */
} gridemst_times;

/* One Boruvka iteration's work, in milliseconds (CUDA: device time between
 * events; CPU: wall time). */
typedef struct gridemst_iteration_times {
    int64_t components; /* components at the iteration's start */
    int64_t fallback_searches; /* searches beyond a point's candidate radius */
    double longest_edge;       /* the longest tree edge it added (caller's units) */
    double findmin1;    /* each point's nearest point in another component (with
                           static pruning: the candidate scan and the fallback searches) */
    double findmin2;    /* each component's shortest outgoing edge */
    double connect;     /* hooking components along those edges (the union) */
    double flatten;     /* pointer jumping to the roots, relabelling, next lists */
} gridemst_iteration_times;

/* A partitioned solve's work (options.partitions > 1; zeros otherwise).
 * "Exchanges" are the data a solve over several devices moves between
 * them; in one process they are copies.  Times are wall times in
 * milliseconds. */
typedef struct gridemst_partition_stats {
    int parts;                /* the parts the points were split into */
    int64_t largest_part;     /* points in the largest part */
    int64_t smallest_part;    /* points in the smallest (0 when a part is empty) */
    int64_t safe_edges;       /* edges of the parts' own trees proven to be tree edges by their part alone */
    int64_t components;       /* the components those edges leave: the boundary Boruvka's vertices */
    int64_t uncertain_edges;  /* the parts' other tree edges, left to the boundary Boruvka */
    int iterations;           /* boundary Boruvka iterations */
    int halo_rounds;          /* exchanges that grew the halos (other parts' points near a part) */
    int64_t halo_points;      /* points in the halos at the end, over all parts (each sent once) */
    int64_t searches;         /* searches from a point through its part's halo */
    int64_t exchanged_bytes;  /* bytes that changed part, all exchanges (the partition's included) */
    double partition_ms;      /* the whole set's frame and the sample sort into parts */
    double local_ms;          /* the parts' own trees (time_ms.grid to time_ms.edges sum their phases) */
    double contract_ms;       /* each point's distance to the other parts, the safe edges */
    double search_ms;         /* boundary Boruvka: the searches through the halos */
    double halo_ms;           /* boundary Boruvka: choosing, sending and indexing halo points */
    double merge_ms;          /* boundary Boruvka: candidate edges gathered and components merged, and the
                                 final tree's assembly (on devices: there, and its copy to host memory) */
    /* partition_ms step by step (with one part per device, the keys, the
     * packing and the sending run on the devices): */
    double frame_ms;          /* the slices' boxes gathered into the whole set's frame (on devices: each
                                 slice's copy to its device included, where its box is taken) */
    double keys_ms;           /* each slice's keys, sorted, and their samples */
    double splitters_ms;      /* the samples gathered, the splitters chosen */
    double pack_ms;           /* each slice's points ordered by part */
    double send_ms;           /* the points sent to their parts (on devices: and each part's copy in host
                                 memory) */
    double tree_edges_ms;     /* within local_ms: the parts' trees taken from their solvers, ties ordered (the
                                 parts' sum on the CPU, where they run in turn; 0 on devices, where the trees
                                 stay) */
    /* contract_ms step by step, each the slowest part's: the parts contract at once, each on its share of
     * the threads (with fewer threads than parts they take turns, and contract_ms is more than the sum): */
    double gaps_ms;           /* the points' working coordinates, Morton keys and cells, their gaps to the other
                                 parts' regions, and the points sorted by gap */
    double safe_ms;           /* the gaps rounded down, and the safe edges marked */
    double components_ms;     /* the safe components, the list of uncertain edges, each component's smallest
                                 gap */
    /* gaps_ms step by step, each the slowest part's: */
    double gaps_alloc_ms;     /* the host arrays the gaps fill, allocated */
    double gaps_device_ms;    /* on devices: the kernels and sorts, waited for (0 on the CPU) */
    double gaps_copy_ms;      /* on devices: the cells' arrays copied to host memory (and the points' where the
                                 safe edges are marked on the host), their pages' first writes included (0 on
                                 the CPU) */
    double part_copy_ms;      /* within send_ms: 0 (on devices the parts' ids stay there; kept for programs that
                                 read it) */
    double free_ms;           /* the parts' host arrays released at the end of the solve */
    double contract_copy_ms;  /* on devices, beside gaps_ms, safe_ms and components_ms: the uncertain edges and
                                 the components' smallest gaps copied to host memory (the slowest part's; 0 on
                                 the CPU) */
} gridemst_partition_stats;

/* Boruvka at least halves the components each iteration: n < 2^32 points
 * need at most 32 iterations. */
#define GRIDEMST_MAX_ITERATIONS 64

typedef struct gridemst_stats {
    gridemst_backend backend;    /* the backend that ran (never AUTO) */
    gridemst_nns nns;             /* the index that ran (never AUTO) */
    gridemst_prune prune;
    gridemst_findmin2 findmin2;
    gridemst_precision precision;
    int threads;                 /* CPU threads used (CPU backend) */
    int iterations;              /* Boruvka iterations */
    int64_t n_unique;            /* points left after removing exact duplicates */
    int64_t n_duplicates;        /* points joined to an equal point by a zero-length edge */
    int64_t cells;               /* grid cells */
    double cell_side;            /* their side (caller's units; 0 for nns BVH) */
    double cell_occupancy;       /* the target mean points per cell the grid was planned for (CPU, after
                                    its refinement on skewed inputs: points / cells) */
    int64_t crowded_cell;        /* cells of more points than this were crowded ... */
    int64_t crowded_cells;       /* ... and searched through a grid of their own */
    int64_t nested_cells;        /* cells of those grids (and of nested ones) crowded again, each searched through
                                    a grid nested in its cell's */
    int64_t block_points;        /* static pruning: points whose nearest neighbours lay in the cells around their
                                    own (on the CPU, in a crowded cell: its sub-cells around their own), scanned
                                    together (the GPU skips this below 500,000 points, and where its cells
                                    are planned for blocks of more than 160 points) */
    int64_t lone_points;         /* always 0 (reserved: kept so that the struct's layout stays) */
    int64_t fallback_searches;   /* searches beyond a point's candidate radius (the count may vary from
                                    run to run: concurrent searches share their bounds) */
    int late_bvh_iteration;      /* the iteration from which FindMin1 searched the late BVH
                                    (options.tuning.late_bvh), or -1 */
    int64_t peak_device_bytes;   /* device memory the solve held at its peak, buffers in use and freed ones its
                                    memory pool kept for reuse (CUDA) */
    int64_t device_bytes_reserved; /* device memory the solve's memory pool took from the device (CUDA): all
                                    it used on a fresh context, 0 on a context whose earlier solves left
                                    enough */
    char device_name[256];       /* GPU name (CUDA) or "cpu" */
    char note[256];              /* what the caller should know, e.g. that AUTO fell back
                                    to the CPU because the job does not fit on the GPU;
                                    empty otherwise */
    gridemst_times time_ms;
    gridemst_iteration_times iteration_ms[GRIDEMST_MAX_ITERATIONS]; /* the first `iterations` */
    gridemst_partition_stats partitions; /* a partitioned solve's; then the counts above sum its
                                    parts' own solves (time_ms their phases), and iterations is 0 */
    double density_contrast;     /* nns AUTO (CUDA: 100,000 points or more): how many points share a point's
                                    grid cell, over what points spread evenly over their box would give
                                    (1: uniform); above 1.5 the BVH is searched.  0 when not measured.  A
                                    partitioned solve measures the whole set once, and its parts search
                                    the index chosen */
    int64_t partition_kept_answers; /* a partitioned solve's, beside partitions.searches: the searches spared,
                                    where a point's last search still answered */
    double partition_devices_ms; /* a solve over several GPUs, beside partitions' steps: its devices opened (a
                                    context each, the NCCL communicators) and closed */
    int64_t partition_border_points; /* a partitioned solve's border step: the points near the parts' borders
                                    it solved as one set (at its last round) ... */
    int64_t partition_border_edges;  /* ... the tree edges between safe components it proved (the boundary
                                    Boruvka found the rest) ... */
    int partition_border_rounds;     /* ... its rounds (0: skipped) ... */
    double partition_border_ms;      /* ... and its time, beside partitions' steps (the search, halo and merge
                                    times are the boundary Boruvka's after it) */
} gridemst_stats;

typedef struct gridemst_result {
    size_t struct_size;     /* sizeof(gridemst_result) as the caller knows it (see "Structs that
                               grow"); set by gridemst_result_init or GRIDEMST_RESULT_INIT */
    int64_t n;              /* points given */
    int dim;                /* 2 or 3 */
    int64_t n_edges;        /* n - 1, or 0 when n < 2 */
    gridemst_edge *edges;   /* sorted by (w, u, v); free with gridemst_result_free; NULL with
                               a device result */
    gridemst_device_edges device_edges; /* with GRIDEMST_RESULT_DEVICE on one device (NULL arrays
                               otherwise, when n < 2, or over several devices: see
                               gridemst_result_device_share) */
    double total_weight;    /* sum of w, added in groups of 1024 edges in edge order, then
                               the groups' sums the same way (the same value on every
                               backend) */
    struct gemst_result_owner *owner; /* the library's: what gridemst_result_free releases */
    gridemst_stats stats;   /* last: it grows at its end; a caller's struct may stop before
                               it or anywhere in it */
} gridemst_result;

/* Fills the first struct_size bytes of *opt with the defaults and sets
 * opt->struct_size: GRIDEMST_OK, or GRIDEMST_ERR_INVALID_ARGUMENT (and
 * nothing written) for a NULL opt or a struct_size no version of the struct
 * has.  For bindings; C and C++ call gridemst_options_init. */
GRIDEMST_API gridemst_status gridemst_options_init_size(gridemst_options *opt, size_t struct_size);

/* Fills *opt with the defaults, its struct_size that of the caller's
 * gridemst.h. */
static inline void gridemst_options_init(gridemst_options *opt)
{
    gridemst_options_init_size(opt, sizeof *opt);
}

/* An empty result for a solve to fill: zeros, and struct_size. */
#define GRIDEMST_RESULT_INIT {.struct_size = sizeof(gridemst_result)}
static inline void gridemst_result_init(gridemst_result *result)
{
    memset(result, 0, sizeof *result);
    result->struct_size = sizeof *result;
}

/*
 * Computes the Euclidean minimum spanning tree of n points of dimension dim
 * (2 or 3), given interleaved (x0, y0[, z0], x1, ...) in coords.  opt may be
 * NULL for the defaults.  *result must have its struct_size set
 * (gridemst_result_init).  On success fills *result (free it with
 * gridemst_result_free) and returns GRIDEMST_OK; otherwise returns a status
 * code, fills *err when it is not NULL, and leaves *result empty (but
 * untouched where its struct_size is refused).
 * n = 0 or 1 gives an empty tree; n may be up to 2^32 - 2 (point indices
 * are 32-bit inside), beyond that the status is GRIDEMST_ERR_INPUT; over
 * n_devices GPUs (n_devices >= 2) up to n_devices (2^32 - 2), with the tree
 * in host memory (a tree left on the devices has 32-bit ids: up to 2^32 - 2
 * points, else GRIDEMST_ERR_UNSUPPORTED).
 */
GRIDEMST_API gridemst_status gridemst_solve(const void *coords, gridemst_dtype dtype, int64_t n, int dim,
                                            const gridemst_options *opt, gridemst_result *result,
                                            gridemst_error *err);

/*
 * gridemst_solve for points already on the GPU: d_coords is device memory
 * (cudaMalloc) or managed memory (cudaMallocManaged) readable by CUDA device
 * opt->device, laid out as for gridemst_solve.  The solve runs on the CUDA
 * backend (opt->backend AUTO or CUDA; CPU is GRIDEMST_ERR_INVALID_ARGUMENT,
 * and there is no fallback to the CPU), on opt->cuda_stream when set, and
 * returns once the tree is in host memory, as gridemst_solve gives it, or in
 * device memory with GRIDEMST_RESULT_DEVICE.  The points are only read.
 * The solve's device memory comes from the memory pool of opt->context, or
 * of a context of its own that is given back before the call returns;
 * buffers are allocated and freed in the order of its stream (no
 * device-wide synchronization).  Without CUDA in the build:
 * GRIDEMST_ERR_UNSUPPORTED.
 */
GRIDEMST_API gridemst_status gridemst_solve_device(const void *d_coords, gridemst_dtype dtype, int64_t n, int dim,
                                                   const gridemst_options *opt, gridemst_result *result,
                                                   gridemst_error *err);

/*
 * Host memory, in bytes, that gridemst_solve of n points of dimension dim
 * with these options (NULL: the defaults) needs besides the caller's
 * points: the result's edges and, on the CPU backend, its working arrays
 * at their peak (an estimate that errs high).  gridemst_solve refuses a job
 * that does not fit in what it may use (options.max_host_bytes) with
 * GRIDEMST_ERR_NO_MEMORY before it allocates; this tells a caller the same
 * before it makes the points.  Backend AUTO counts as the CUDA backend
 * where a device is usable (which falls back to the CPU when the job does
 * not fit on it).  Returns -1 for an invalid n, dim or option.
 */
GRIDEMST_API int64_t gridemst_host_bytes(int64_t n, int dim, const gridemst_options *opt);

/* Releases what gridemst_solve allocated, the device edges included, and
 * empties *result (its struct_size stays, so that it can be solved into
 * again); safe on an empty result. */
GRIDEMST_API void gridemst_result_free(gridemst_result *result);

/* The number of shares a tree in device memory lies in: 1 for a device
 * result of one device, one a device for a device result of a solve over
 * several devices, 0 for a tree in host memory or of no edges. */
GRIDEMST_API int gridemst_result_device_shares(const gridemst_result *result);

/*
 * Share k (0 <= k < gridemst_result_device_shares) of a tree in device
 * memory: into *edges its three arrays, on device edges->device, which hold
 * the sorted tree's edges *first to *first + *n_edges - 1 (the shares follow
 * each other in the tree's order, share 0 from the first edge).  The arrays
 * belong to the result, as result.device_edges do, and come from a memory
 * pool of their device: read them with that device current (cudaSetDevice),
 * as another device may not map them.  For a device result of one device,
 * share 0 is result.device_edges, all of them.  A NULL result or
 * edges, or k out of range: GRIDEMST_ERR_INVALID_ARGUMENT, nothing written
 * (first and n_edges may be NULL).
 */
GRIDEMST_API gridemst_status gridemst_result_device_share(const gridemst_result *result, int k,
                                                          gridemst_device_edges *edges, int64_t *first,
                                                          int64_t *n_edges);

/*
 * Makes a context (see gridemst_context) on CUDA device `device`, working
 * on cuda_stream (a cudaStream_t of that device, which must outlive the
 * context and every result made on it) or, when NULL, on a stream of its
 * own.  GRIDEMST_OK and *ctx, or
 * a status: GRIDEMST_ERR_NO_DEVICE for a device that is not there,
 * GRIDEMST_ERR_UNSUPPORTED without CUDA in the build.
 */
GRIDEMST_API gridemst_status gridemst_context_create(int device, void *cuda_stream, gridemst_context **ctx,
                                                     gridemst_error *err);

/* Gives the context up; its memory goes back once no result holds it.
 * NULL is fine. */
GRIDEMST_API void gridemst_context_free(gridemst_context *ctx);

/* ------------------------------------------------------------ clustering
 * Single linkage from a tree: every function takes a result of
 * gridemst_solve (edges sorted by (w, u, v)) over n points. */

/* One merge of the single-linkage hierarchy, as a row of SciPy's linkage
 * matrix: clusters a < b (points are 0 .. n-1, the cluster made by row i
 * is n + i) joined at distance, making a cluster of size points. */
typedef struct gridemst_merge {
    int64_t a, b;
    double distance;
    int64_t size;
} gridemst_merge;

/* The n - 1 merges, in edge order (equal distances merge in (u, v) order).
 * rows has room for n - 1 entries (none needed when n < 2). */
GRIDEMST_API gridemst_status gridemst_linkage(const gridemst_result *tree, gridemst_merge *rows, gridemst_error *err);

/*
 * Flat clusters: labels[i] for each of the n points, numbered 0, 1, ... in
 * the order of each cluster's smallest point id.  gridemst_clusters_k cuts
 * the k - 1 heaviest edges (in edge order) into k clusters (fewer when
 * n < k); gridemst_clusters_cut cuts every edge longer than distance (the
 * friends-of-friends groups at that linking length: points closer than or
 * at the distance are friends).  Clusters with fewer than min_size points
 * are labelled -1 (noise) and take no number.  *n_clusters (may be NULL)
 * receives the number of labels used.
 */
GRIDEMST_API gridemst_status gridemst_clusters_k(const gridemst_result *tree, int64_t k, int64_t min_size,
                                                 int64_t *labels, int64_t *n_clusters, gridemst_error *err);
GRIDEMST_API gridemst_status gridemst_clusters_cut(const gridemst_result *tree, double distance, int64_t min_size,
                                                   int64_t *labels, int64_t *n_clusters, gridemst_error *err);

/* ------------------------------------------------------------ HDBSCAN*
 * Density-based clusters from a tree, as scikit-learn's HDBSCAN and the
 * hdbscan package compute them (Campello, Moulavi & Sander 2013; McInnes &
 * Healy 2017): give it the mutual-reachability tree (gridemst_solve with
 * options.min_samples; min_samples defaults to min_cluster_size there).
 * From the tree: the single-linkage hierarchy, the condensed tree for
 * min_cluster_size, each cluster's stability, and the flat clusters it
 * selects.  Merges of equal length are taken in the tree's (w, u, v) order,
 * and each merge lists first the side of point 0 (as scikit-learn's Prim
 * from point 0 does), so that on a tree without ties the condensed tree,
 * its cluster ids and the labels are scikit-learn's (those of its K-d tree
 * and ball tree runs; its brute run may number the same clusters
 * otherwise). */

typedef enum gridemst_cluster_selection {
    GRIDEMST_SELECTION_EOM = 0, /* excess of mass: the most stable clusters (default) */
    GRIDEMST_SELECTION_LEAF = 1 /* the leaves of the condensed tree */
} gridemst_cluster_selection;

typedef struct gridemst_hdbscan_options {
    size_t struct_size;                   /* set by gridemst_hdbscan_options_init (see "Structs that
                                             grow") */
    int64_t min_cluster_size;             /* >= 2; default 5 (scikit-learn's) */
    gridemst_cluster_selection selection; /* default EOM */
    double cluster_selection_epsilon;     /* >= 0 (default 0): clusters split below this distance
                                             are merged back into the one they split from */
    int allow_single_cluster;             /* default 0: the root may be selected as the only cluster */
    int64_t max_cluster_size;             /* EOM: clusters of more points are not selected (their
                                             children are); 0 = no limit (default) */
} gridemst_hdbscan_options;

/* One row of the condensed tree, the hdbscan package's layout: a child
 * (a point 0 .. n-1, or a cluster n, n+1, ...; the root is n) leaving its
 * parent cluster at lambda = 1 / distance (infinity at distance 0), and the
 * child's point count (1 for a point). */
typedef struct gridemst_condensed_row {
    int64_t parent, child;
    double lambda;
    int64_t child_size;
} gridemst_condensed_row;

/* The clustering, allocated by gridemst_hdbscan; free with
 * gridemst_hdbscan_free. */
typedef struct gridemst_hdbscan_result {
    size_t struct_size;              /* set by gridemst_hdbscan_result_init (see "Structs that grow") */
    int64_t n;                       /* points */
    int64_t n_clusters;              /* clusters selected: labels 0 .. n_clusters - 1 */
    int64_t *labels;                 /* n: each point's cluster, -1 for noise; clusters numbered in
                                        the order of their condensed-tree ids, as scikit-learn's */
    double *probabilities;           /* n: membership strength in [0, 1], 0 for noise */
    double *outlier_scores;          /* n: GLOSH outlier scores (the hdbscan package's outlier_scores_) */
    int64_t n_rows;                  /* rows of the condensed tree */
    gridemst_condensed_row *condensed; /* in the order scikit-learn and hdbscan list them */
    int64_t n_tree_clusters;         /* clusters of the condensed tree, the root included */
    double *stability;               /* n_tree_clusters: each tree cluster's stability (cluster n + i) */
} gridemst_hdbscan_result;

/* As gridemst_options_init_size and gridemst_options_init. */
GRIDEMST_API gridemst_status gridemst_hdbscan_options_init_size(gridemst_hdbscan_options *opt,
                                                                size_t struct_size);
static inline void gridemst_hdbscan_options_init(gridemst_hdbscan_options *opt)
{
    gridemst_hdbscan_options_init_size(opt, sizeof *opt);
}

/* An empty clustering for gridemst_hdbscan to fill: zeros, and struct_size. */
static inline void gridemst_hdbscan_result_init(gridemst_hdbscan_result *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
}

/*
 * HDBSCAN* clusters from a tree (a gridemst_solve result over n points,
 * edges sorted by (w, u, v)); opt may be NULL for the defaults; *out must
 * have its struct_size set (gridemst_hdbscan_result_init).  On success
 * fills *out (free it with gridemst_hdbscan_free) and returns GRIDEMST_OK;
 * otherwise returns a status code (GRIDEMST_ERR_INVALID_ARGUMENT for a bad
 * option or a tree that is not one, GRIDEMST_ERR_NO_MEMORY), fills *err
 * when not NULL, and leaves *out empty.  Reads only *tree; safe to call
 * from several threads on different outputs.
 */
GRIDEMST_API gridemst_status gridemst_hdbscan(const gridemst_result *tree, const gridemst_hdbscan_options *opt,
                                              gridemst_hdbscan_result *out, gridemst_error *err);

/* Releases what gridemst_hdbscan allocated; safe on an empty result. */
GRIDEMST_API void gridemst_hdbscan_free(gridemst_hdbscan_result *out);

/* "eom", "leaf"; gridemst_parse_cluster_selection returns 0, or -1 for an
 * unknown name. */
GRIDEMST_API const char *gridemst_cluster_selection_name(gridemst_cluster_selection s);
GRIDEMST_API int gridemst_parse_cluster_selection(const char *name, gridemst_cluster_selection *out);
/* ---------------------------------------------------- friends-of-friends
 *
 * gridemst_fof finds the friends-of-friends groups of n points at one
 * linking length b: the groups of points joined by chains of pairs at most
 * b apart.  It builds no whole tree: a grid of cells no narrower than b,
 * and (CPU backend) Boruvka over the pairs within b only, until no
 * component has a friend outside it, or (CUDA backend) a union-find over
 * those pairs.  Pairs are friends exactly when the tree edge between
 * them would have a length w <= b (the rule of gridemst_clusters_cut, in
 * the working precision of opt->precision), so that on the same points
 * and options
 *   - labels equal those of gridemst_clusters_cut(tree, b, min_size), the
 *     numbering included, and
 *   - the forest is the tree's edges of length <= b: the minimum spanning
 *     forest of the pairs of friends, in the same edge order.
 * (In double precision friends-of-friends works on the coordinates
 * translated to the bounding-box minimum, as float precision does, while
 * the tree does not translate them: the two can then disagree only about a
 * pair whose distance lies within double rounding of b, and only where
 * translating rounds, i.e. where the points span more than 2^53 times the
 * finest step of their coordinates.)
 *
 * box: NULL for open space; else dim side lengths, one per axis (each
 * finite and > 0): the points lie in the periodic box [0, box[0]) x
 * [0, box[1]) (x [0, box[2])), distances are minimum-image distances, and
 * a coordinate outside [0, box[d]) is wrapped into it (x mod box[d]).  b
 * must then be less than half of every side (GRIDEMST_ERR_INVALID_ARGUMENT
 * otherwise).  The forest's edges then have their periodic lengths.
 *
 * labels: n entries, or NULL when not wanted.  Groups are numbered 0, 1,
 * ... in the order of each group's smallest point id; groups of fewer than
 * min_size points (>= 0) are labelled -1 (noise) and take no number.
 * *n_groups (may be NULL) receives the number of labels used.  Exact
 * duplicates are friends at any b >= 0.
 *
 * forest: NULL, or (its struct_size set, as for gridemst_solve) filled as
 * gridemst_solve fills a result (free it with
 * gridemst_result_free), except that n_edges is n less the number of
 * groups (noise included) and stats.cells, cell_side and cell_occupancy
 * describe the friends-of-friends grid (stats.crowded_cells: its cells
 * split into sub-cells).  A forest is no spanning tree: gridemst_linkage
 * and gridemst_clusters_* refuse it.
 *
 * opt (NULL: defaults): precision, threads, tuning.cell_occupancy (mean
 * points per cell when that gives cells wider than b; default 2),
 * max_host_bytes and progress apply; nns and the rest of tuning do not.
 *
 * Backends: both find the same pairs of friends (the same working frame,
 * precision and rounding) and give identical labels.  The CPU backend
 * builds the forest; the CUDA backend gives labels and n_groups alone,
 * joining the pairs of friends by a union-find, and returns
 * GRIDEMST_ERR_UNSUPPORTED when a forest is asked.  Backend AUTO runs on
 * the CUDA backend where a device is usable and forest is NULL (and falls
 * back to the CPU when the job does not fit on the device), or where
 * labels stay on the device; else on the CPU.  With options.result
 * GRIDEMST_RESULT_DEVICE (CUDA only), labels is device memory of
 * options.device (n entries, the caller's, written when the call
 * returns) and nothing but n_groups comes to the host.
 * options.device, context and cuda_stream apply on the CUDA backend as in
 * gridemst_solve.
 *
 * Failures are as in gridemst_solve (bad arguments, non-finite coordinates
 * named by point, memory); then *forest is empty and labels unspecified.
 * Thread safety as gridemst_solve.
 */
GRIDEMST_API gridemst_status gridemst_fof(const void *coords, gridemst_dtype dtype, int64_t n, int dim,
                                          double linking_length, const double *box, int64_t min_size,
                                          const gridemst_options *opt, int64_t *labels, int64_t *n_groups,
                                          gridemst_result *forest, gridemst_error *err);

/*
 * gridemst_fof for points already on the GPU: d_coords is device or managed
 * memory of CUDA device opt->device, laid out as for gridemst_fof, only
 * read.  It runs on the CUDA backend (backend AUTO or CUDA; CPU is
 * GRIDEMST_ERR_INVALID_ARGUMENT, with no fallback) and gives no forest.
 * labels (n entries, or NULL) is host memory, or device memory of
 * opt->device with options.result GRIDEMST_RESULT_DEVICE: points and labels
 * then never leave the device.  Without CUDA in the build:
 * GRIDEMST_ERR_UNSUPPORTED.
 */
GRIDEMST_API gridemst_status gridemst_fof_device(const void *d_coords, gridemst_dtype dtype, int64_t n, int dim,
                                                 double linking_length, const double *box, int64_t min_size,
                                                 const gridemst_options *opt, int64_t *labels, int64_t *n_groups,
                                                 gridemst_error *err);

/* Number of usable CUDA devices; 0 when none or when built without CUDA. */
GRIDEMST_API int gridemst_cuda_device_count(void);

/* Short names of status codes and option values ("invalid argument",
 * "static", "cuda", "device", ...), and the parser for option value names.
 * gridemst_parse_* return 0 on success, -1 for an unknown name. */
GRIDEMST_API const char *gridemst_status_name(gridemst_status status);
GRIDEMST_API const char *gridemst_backend_name(gridemst_backend b);
GRIDEMST_API const char *gridemst_nns_name(gridemst_nns s);
GRIDEMST_API const char *gridemst_prune_name(gridemst_prune p);
GRIDEMST_API const char *gridemst_findmin2_name(gridemst_findmin2 f);
GRIDEMST_API const char *gridemst_precision_name(gridemst_precision p);
GRIDEMST_API const char *gridemst_result_place_name(gridemst_result_place r);
GRIDEMST_API int gridemst_parse_backend(const char *name, gridemst_backend *out);
GRIDEMST_API int gridemst_parse_nns(const char *name, gridemst_nns *out);
GRIDEMST_API int gridemst_parse_prune(const char *name, gridemst_prune *out);
GRIDEMST_API int gridemst_parse_findmin2(const char *name, gridemst_findmin2 *out);
GRIDEMST_API int gridemst_parse_precision(const char *name, gridemst_precision *out);
GRIDEMST_API int gridemst_parse_result_place(const char *name, gridemst_result_place *out);
/* options.tuning.late_bvh from "auto" (0), "never" (-1) or an iteration >= 1. */
GRIDEMST_API int gridemst_parse_late_bvh(const char *name, int *out);

/* The version of the library the program runs with, "MAJOR.MINOR.PATCH"
 * (GRIDEMST_VERSION_STRING is that of the headers it was compiled with).
 * A static string. */
GRIDEMST_API const char *gridemst_version(void);

#ifdef __cplusplus
}
#endif

#endif /* GRIDEMST_H */
