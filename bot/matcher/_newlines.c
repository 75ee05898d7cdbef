/* Newlines in a slice of bytes: what `data.count(b"\n", start, end)` returns, counted faster.
 *
 * The matcher numbers lines by counting newlines over the whole log; CPython's bytes.count
 * tests one byte at a time with an early-exit check that keeps the compiler from vectorizing
 * (about 3 GB/s here), a tenth of a 100 MB scan's time. This loop has no exit and compiles to
 * vector compares (setup.py asks for -O3). bot/matcher/engine.py falls back to
 * bytes.count where this is not built; tests hold the two to the same answers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *count(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "count() takes (data: bytes, start: int, end: int)");
        return NULL;
    }
    if (!PyBytes_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "count() takes bytes, not %.100s", Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (end == -1 && PyErr_Occurred()) return NULL;
    /* Slice semantics, as bytes.count: negative from the end, then clamped to [0, n]. */
    if (start < 0) start = (start + n < 0) ? 0 : start + n;
    if (end < 0) end = (end + n < 0) ? 0 : end + n;
    if (end > n) end = n;
    const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t total = 0;
    for (Py_ssize_t i = start; i < end; i++) total += (s[i] == '\n');
    return PyLong_FromSsize_t(total);
}

static PyMethodDef methods[] = {
    {"count", (PyCFunction)(void (*)(void))count, METH_FASTCALL,
     "count(data, start, end): data.count(b'\\n', start, end)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_newlines",
    .m_doc = "Newline counting for the matcher (see lines_count.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__newlines(void) { return PyModule_Create(&module); }
