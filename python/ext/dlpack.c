/*
 * DLPack's C structures (dlpack.h, the stable layout that `__dlpack__`
 * capsules named "dltensor" carry) and a reader of them.
 */
#include "dlpack.h"

#include <stdint.h>

typedef struct {
    int32_t device_type; /* kDLCPU 1, kDLCUDA 2, kDLCUDAHost 3, kDLCUDAManaged 13, ... */
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code; /* kDLInt 0, kDLUInt 1, kDLFloat 2, ... */
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* NULL: compact, row-major */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

static PyObject *int64_tuple(const int64_t *values, int32_t count)
{
    PyObject *t = PyTuple_New(count);
    for (int32_t i = 0; t && i < count; i++) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

PyObject *pyg_dlpack_tensor(PyObject *module, PyObject *capsule)
{
    (void)module;
    if (!PyCapsule_IsValid(capsule, "dltensor")) {
        PyErr_SetString(PyExc_TypeError, "__dlpack__() did not return an unconsumed DLPack capsule ('dltensor')");
        return NULL;
    }
    const DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
    if (!m)
        return NULL;
    const DLTensor *t = &m->dl_tensor;
    PyObject *shape = int64_tuple(t->shape, t->ndim);
    PyObject *strides = t->strides ? int64_tuple(t->strides, t->ndim) : (Py_INCREF(Py_None), Py_None);
    PyObject *d = NULL;
    if (shape && strides)
        d = Py_BuildValue("{s:K,s:i,s:i,s:O,s:O,s:(iii)}", "data",
                          (unsigned long long)((uintptr_t)t->data + t->byte_offset), "device_type",
                          (int)t->device.device_type, "device_id", (int)t->device.device_id, "shape", shape,
                          "strides", strides, "dtype", (int)t->dtype.code, (int)t->dtype.bits, (int)t->dtype.lanes);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return d;
}
