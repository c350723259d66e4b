/*
 * gridemst._gridemst: the numpy layer between the Python package and
 * library.h.  It turns arrays and device addresses into solve requests,
 * solves without the GIL, and hands out what a tree gives as numpy arrays.
 * The package (src/gridemst/) checks and converts the caller's input first.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <structmember.h>

#include "dlpack.h"
#include "library.h"

static PyObject *GridemstError;

/* The library's failure as ValueError, MemoryError or GridemstError (which
 * carries the library's status name as .status). */
static PyObject *raise_failure(const pyg_failure *fail)
{
    if (fail->kind != PYG_FAIL_RUNTIME) {
        PyErr_SetString(fail->kind == PYG_FAIL_VALUE ? PyExc_ValueError : PyExc_MemoryError, fail->message);
        return NULL;
    }
    PyObject *e = PyObject_CallFunction(GridemstError, "s", fail->message);
    PyObject *status = PyUnicode_FromString(fail->status);
    if (e && status && PyObject_SetAttrString(e, "status", status) == 0)
        PyErr_SetObject(GridemstError, e);
    Py_XDECREF(status);
    Py_XDECREF(e);
    return NULL;
}

/* ---------------------------------------------------------------- Tree */

typedef struct {
    PyObject_HEAD
    pyg_tree *tree;
    int on_device;
    long long n_points, n_edges; /* read-only attributes, from the tree */
    int dim;
    double total_weight;
} TreeObject;

static PyTypeObject TreeType;

static PyObject *new_tree(pyg_tree *tree, int on_device)
{
    TreeObject *t = PyObject_New(TreeObject, &TreeType);
    if (!t) {
        pyg_tree_free(tree);
        return NULL;
    }
    t->tree = tree;
    t->on_device = on_device;
    t->n_points = pyg_tree_points(tree);
    t->n_edges = pyg_tree_edge_count(tree);
    t->dim = pyg_tree_dim(tree);
    t->total_weight = pyg_tree_total_weight(tree);
    return (PyObject *)t;
}

static void tree_dealloc(TreeObject *t)
{
    pyg_tree *tree = t->tree;
    /* freeing device arrays may wait for the stream they were made on */
    Py_BEGIN_ALLOW_THREADS
    pyg_tree_free(tree);
    Py_END_ALLOW_THREADS
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static int need_host(const TreeObject *t)
{
    if (t->on_device)
        PyErr_SetString(PyExc_ValueError, "the tree is in device memory; solve with result='host' for this");
    return !t->on_device;
}

static PyObject *tree_edges(TreeObject *t, PyObject *unused)
{
    (void)unused;
    if (!need_host(t))
        return NULL;
    npy_intp m = (npy_intp)t->n_edges, shape[2] = {m, 2};
    PyObject *uv = PyArray_SimpleNew(2, shape, NPY_INT64);
    PyObject *w = PyArray_SimpleNew(1, &m, NPY_FLOAT64);
    if (!uv || !w) {
        Py_XDECREF(uv);
        Py_XDECREF(w);
        return NULL;
    }
    pyg_tree_copy_edges(t->tree, PyArray_DATA((PyArrayObject *)uv), PyArray_DATA((PyArrayObject *)w));
    return Py_BuildValue("(NN)", uv, w);
}

static PyObject *tree_linkage(TreeObject *t, PyObject *unused)
{
    (void)unused;
    if (!need_host(t))
        return NULL;
    npy_intp shape[2] = {(npy_intp)t->n_edges, 4};
    PyObject *z = PyArray_SimpleNew(2, shape, NPY_FLOAT64);
    if (!z)
        return NULL;
    pyg_failure fail;
    if (pyg_tree_linkage(t->tree, PyArray_DATA((PyArrayObject *)z), &fail) != 0) {
        Py_DECREF(z);
        return raise_failure(&fail);
    }
    return z;
}

/* clusters_k(k, min_size) and clusters_cut(distance, min_size): (labels, n_clusters). */
static PyObject *tree_clusters(TreeObject *t, PyObject *args, int by_count)
{
    long long k = 0, min_size;
    double distance = 0.0;
    if (!(by_count ? PyArg_ParseTuple(args, "LL", &k, &min_size) : PyArg_ParseTuple(args, "dL", &distance, &min_size)))
        return NULL;
    if (!need_host(t))
        return NULL;
    npy_intp n = (npy_intp)t->n_points;
    PyObject *labels = PyArray_SimpleNew(1, &n, NPY_INT64);
    if (!labels)
        return NULL;
    int64_t *out = PyArray_DATA((PyArrayObject *)labels), count = 0;
    pyg_failure fail;
    int rc = by_count ? pyg_tree_clusters_k(t->tree, k, min_size, out, &count, &fail)
                      : pyg_tree_clusters_cut(t->tree, distance, min_size, out, &count, &fail);
    if (rc != 0) {
        Py_DECREF(labels);
        return raise_failure(&fail);
    }
    return Py_BuildValue("(NL)", labels, (long long)count);
}

static PyObject *tree_clusters_k(TreeObject *t, PyObject *args) { return tree_clusters(t, args, 1); }
static PyObject *tree_clusters_cut(TreeObject *t, PyObject *args) { return tree_clusters(t, args, 0); }

static int need_device(const TreeObject *t)
{
    if (!t->on_device)
        PyErr_SetString(PyExc_ValueError, "the tree is in host memory");
    return t->on_device;
}

static PyObject *tree_device_arrays(TreeObject *t, PyObject *unused)
{
    (void)unused;
    if (!need_device(t))
        return NULL;
    uintptr_t u, v, w;
    int device;
    pyg_tree_device_arrays(t->tree, &u, &v, &w, &device);
    return Py_BuildValue("(KKKi)", (unsigned long long)u, (unsigned long long)v, (unsigned long long)w, device);
}

static PyObject *tree_shares(TreeObject *t, PyObject *unused)
{
    (void)unused;
    if (!need_device(t))
        return NULL;
    int n_shares = pyg_tree_shares(t->tree);
    PyObject *shares = PyList_New(n_shares);
    for (int k = 0; shares && k < n_shares; k++) {
        uintptr_t u, v, w;
        int device;
        int64_t first, count;
        pyg_tree_share(t->tree, k, &u, &v, &w, &device, &first, &count);
        PyObject *share = Py_BuildValue("(KKKiLL)", (unsigned long long)u, (unsigned long long)v,
                                        (unsigned long long)w, device, (long long)first, (long long)count);
        if (!share)
            Py_CLEAR(shares);
        else
            PyList_SET_ITEM(shares, k, share);
    }
    return shares;
}

static PyMethodDef tree_methods[] = {
    {"edges", (PyCFunction)tree_edges, METH_NOARGS, "edges() -> (int64 (m, 2) endpoints, float64 (m,) lengths)"},
    {"linkage", (PyCFunction)tree_linkage, METH_NOARGS, "linkage() -> float64 (n - 1, 4), SciPy's linkage matrix"},
    {"clusters_k", (PyCFunction)tree_clusters_k, METH_VARARGS, "clusters_k(k, min_size) -> (labels, n_clusters)"},
    {"clusters_cut", (PyCFunction)tree_clusters_cut, METH_VARARGS,
     "clusters_cut(distance, min_size) -> (labels, n_clusters)"},
    {"device_arrays", (PyCFunction)tree_device_arrays, METH_NOARGS,
     "device_arrays() -> (u, v, w addresses, device) of a tree in device memory"},
    {"shares", (PyCFunction)tree_shares, METH_NOARGS,
     "shares() -> [(u, v, w addresses, device, first, count)] of a tree in device memory, in the tree's order"},
    {NULL, NULL, 0, NULL}};

static PyMemberDef tree_members[] = {
    {"n_points", T_LONGLONG, offsetof(TreeObject, n_points), READONLY, "points solved"},
    {"n_edges", T_LONGLONG, offsetof(TreeObject, n_edges), READONLY, "tree edges: n - 1, or 0 when n < 2"},
    {"dim", T_INT, offsetof(TreeObject, dim), READONLY, "the points' dimension, 2 or 3"},
    {"total_weight", T_DOUBLE, offsetof(TreeObject, total_weight), READONLY, "the tree's total length"},
    {NULL, 0, 0, 0, NULL}};

static PyTypeObject TreeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gridemst._gridemst.Tree",
    .tp_basicsize = sizeof(TreeObject),
    .tp_dealloc = (destructor)tree_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A solved tree; it owns the library's result and frees it when it goes.",
    .tp_methods = tree_methods,
    .tp_members = tree_members,
};

/* ---------------------------------------------------------------- solves */

/* Asked between phases from the solving thread: a Ctrl-C (or another
 * signal whose handler raised) sets the exception and answers stop. */
static int stop_on_signal(void *arg)
{
    int *interrupted = arg;
    PyGILState_STATE g = PyGILState_Ensure();
    if (!*interrupted && PyErr_CheckSignals() < 0)
        *interrupted = 1;
    PyGILState_Release(g);
    return *interrupted;
}

static PyObject *run_solve(pyg_request *rq)
{
    int interrupted = 0, rc;
    pyg_tree *tree = NULL;
    pyg_failure fail;
    rq->stop = stop_on_signal;
    rq->stop_arg = &interrupted;
    Py_BEGIN_ALLOW_THREADS
    rc = pyg_solve(rq, &tree, &fail);
    Py_END_ALLOW_THREADS
    if (interrupted) {
        pyg_tree_free(tree);
        return NULL; /* with the exception the signal's handler raised */
    }
    if (rc != 0)
        return raise_failure(&fail);
    return new_tree(tree, rq->device_result);
}

/* The most devices a solve over several takes (the library's limit). */
#define MAX_DEVICES 64

/* A tuple of device ordinals into ordinal[] and *count, or -1 in *count
 * for every device (all_devices); -1 with a Python error for a bad one. */
static int device_list(PyObject *devices, int all_devices, int *ordinal, int *count)
{
    *count = all_devices ? -1 : 0;
    if (!devices || all_devices)
        return 0;
    if (!PyTuple_Check(devices) || PyTuple_GET_SIZE(devices) > MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "devices must be a tuple of at most %d device numbers", MAX_DEVICES);
        return -1;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(devices); k++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(devices, k));
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v < 0 || v > INT_MAX) {
            PyErr_Format(PyExc_ValueError, "%ld is not a device number", v);
            return -1;
        }
        ordinal[k] = (int)v;
    }
    *count = (int)PyTuple_GET_SIZE(devices);
    return 0;
}

static PyObject *solve(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"points", "precision", "backend", "index", "threads", "device_result", "devices",
                             "all_devices", NULL};
    (void)self;
    PyArrayObject *points;
    PyObject *devices = NULL;
    int all_devices = 0, ordinal[MAX_DEVICES];
    pyg_request rq = {.precision = "double", .backend = "auto", .index = "auto"};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|$sssipOp", kwlist, &PyArray_Type, &points, &rq.precision,
                                     &rq.backend, &rq.index, &rq.threads, &rq.device_result, &devices,
                                     &all_devices))
        return NULL;
    if (device_list(devices, all_devices, ordinal, &rq.n_devices) != 0)
        return NULL;
    rq.devices = ordinal;
    int type = PyArray_TYPE(points);
    if (PyArray_NDIM(points) != 2 || (type != NPY_FLOAT32 && type != NPY_FLOAT64) ||
        !PyArray_IS_C_CONTIGUOUS(points) || !PyArray_ISALIGNED(points)) {
        PyErr_SetString(PyExc_TypeError, "points must be an aligned C-contiguous 2-D float32 or float64 array");
        return NULL;
    }
    rq.coords = PyArray_DATA(points);
    rq.float64 = type == NPY_FLOAT64;
    rq.n = PyArray_DIM(points, 0);
    rq.dim = (int)PyArray_DIM(points, 1);
    return run_solve(&rq); /* the caller's reference keeps points alive */
}

static PyObject *solve_device(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"address", "n", "dim", "float64", "device", "stream", "precision", "backend",
                             "index", "threads", "device_result", NULL};
    (void)self;
    unsigned long long address, stream;
    long long n;
    pyg_request rq = {.precision = "double", .backend = "auto", .index = "auto"};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "KLipiK|$sssip", kwlist, &address, &n, &rq.dim, &rq.float64,
                                     &rq.device, &stream, &rq.precision, &rq.backend, &rq.index, &rq.threads,
                                     &rq.device_result))
        return NULL;
    rq.coords = (const void *)(uintptr_t)address;
    rq.n = n;
    rq.on_device = 1;
    rq.stream = (void *)(uintptr_t)stream;
    return run_solve(&rq);
}

static PyObject *library_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(pyg_library_version());
}

static PyObject *cuda_device_count(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(pyg_cuda_device_count());
}

static PyMethodDef module_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))solve, METH_VARARGS | METH_KEYWORDS,
     "solve(points, *, precision, backend, index, threads, device_result, devices, all_devices) -> Tree"},
    {"solve_device", (PyCFunction)(void (*)(void))solve_device, METH_VARARGS | METH_KEYWORDS,
     "solve_device(address, n, dim, float64, device, stream, *, precision, backend, index, threads, "
     "device_result) -> Tree"},
    {"dlpack_tensor", pyg_dlpack_tensor, METH_O, "dlpack_tensor(capsule) -> dict describing the tensor"},
    {"library_version", library_version, METH_NOARGS, "the version of the gridemst library in use"},
    {"cuda_device_count", cuda_device_count, METH_NOARGS, "usable CUDA devices (0 without CUDA in the library)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_gridemst", "The C layer of gridemst.", -1,
                                        module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__gridemst(void)
{
    import_array();
    if (PyType_Ready(&TreeType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    GridemstError = PyErr_NewExceptionWithDoc(
        "gridemst.GridemstError",
        "A failure of the solver other than bad input or memory: no CUDA device, a CUDA error, a request this "
        "build does not support.  .status holds the library's name of it.",
        PyExc_RuntimeError, NULL);
    /* PyModule_AddObject takes a reference on success: the module's */
    Py_XINCREF(GridemstError);
    Py_INCREF(&TreeType);
    if (!GridemstError || PyModule_AddObject(m, "GridemstError", GridemstError) < 0 ||
        PyModule_AddObject(m, "Tree", (PyObject *)&TreeType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
