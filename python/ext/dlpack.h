/* Reading a DLPack capsule (the `__dlpack__` protocol) without consuming it. */
#ifndef PYGEMST_DLPACK_H
#define PYGEMST_DLPACK_H

#include <Python.h>

/* dlpack_tensor(capsule) -> dict: data (address of the first element),
 * device_type, device_id, shape, strides (in elements, or None: C order),
 * dtype (code, bits, lanes).  The capsule stays unconsumed: its producer
 * frees the tensor when the capsule goes, so the caller keeps it alive as
 * long as the memory is read. */
PyObject *pyg_dlpack_tensor(PyObject *module, PyObject *capsule);

#endif
