/* replaced(text: str) -> bytes: what text.encode("ascii", errors="replace") returns, faster.
 *
 * The masking anchor scan and the learned-name scan hand Hyperscan one byte per character,
 * with every character outside ASCII as `?`. A training log's tqdm bars make most 1 MB pieces
 * two-byte str, and CPython's encoder then goes a character at a time through its error
 * handling, about 1 ms a piece, twice a piece. These loops have no branch a compiler cannot
 * turn into vector selects (setup.py asks for -O3). bot/masking/ascii_bytes.py falls back to
 * str.encode where this is not built; tests hold the two to the same answers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NARROW(TYPE)                                                       \
    do {                                                                   \
        const TYPE *in = (const TYPE *)data;                               \
        for (Py_ssize_t i = 0; i < n; i++) out[i] = in[i] < 128 ? (char)in[i] : '?'; \
    } while (0)

static PyObject *replaced(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "replaced() takes str, not %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return NULL; /* a no-op from 3.12 on */
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *data = PyUnicode_DATA(text);
    if (PyUnicode_IS_ASCII(text)) return PyBytes_FromStringAndSize((const char *)data, n);
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, n);
    if (bytes == NULL) return NULL;
    char *out = PyBytes_AS_STRING(bytes);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        NARROW(Py_UCS1);
        break;
    case PyUnicode_2BYTE_KIND:
        NARROW(Py_UCS2);
        break;
    default:
        NARROW(Py_UCS4);
        break;
    }
    return bytes;
}

static PyMethodDef methods[] = {
    {"replaced", replaced, METH_O, "replaced(text) -> bytes: text.encode('ascii', errors='replace')."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_ascii",
    .m_doc = "One byte per character, `?` outside ASCII (see ascii_bytes.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__ascii(void) { return PyModule_Create(&module); }
