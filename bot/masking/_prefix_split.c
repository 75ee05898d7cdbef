/* The NCCL prefix split of bot/masking/prefix_hosts.py, written out as a scanner.
 *
 * split(text: str) -> list[str] returns exactly what prefix_hosts._SPLIT.split(text) returns:
 * [before, lead, host, before, lead, host, ..., before], one triple per line-leading NCCL
 * prefix (`\n[rank8]:host:pid:tid [dev] NCCL`). On a 1,000-rank NCCL INFO log nearly every
 * line is one, and `re` spends about a quarter of a microsecond matching each; this checks the
 * same characters in a few nanoseconds. The regex stays the reference and the fallback
 * (tests/test_masking_prefilter.py holds the two to the same answer on every combination of
 * the pattern's parts, Unicode included, and on random text).
 *
 * The pattern, and why each step below needs no backtracking:
 *
 *   (\n(?:\[[\w,.-]{1,32}+\](?:<\w{1,8}+>|): ?|))     group 1: the newline and the lead
 *   ([^\s:\[\]<>|]{1,253}+)                           group 2: the host
 *   (?=:\d{1,10}+:\d{1,10}+ \[\d{1,4}+\]              the tail, looked at, not taken
 *      (?:NCCL|[\w./-]{1,128}:\d{1,6} NCCL))
 *
 * The classes are str's, tested as `re` tests them (\w: Py_UNICODE_ISALNUM or `_`; \d:
 * Py_UNICODE_ISDECIMAL; \s: Py_UNICODE_ISSPACE), with the ASCII answers inlined. Every run is
 * followed by a character the run's class excludes, so a shorter run can never be followed by
 * it: taking the longest run (up to its bound) and checking the next character decides. When
 * the line opens with `[`, only the lead can match (a host cannot start with `[`); `<\w+>` and
 * `:` after the `]` exclude each other; a host cannot start with a blank, so the blank after
 * the lead's colon is taken when present.
 *
 * Every read is bounds-checked against the length of the str; nothing is written but new str
 * objects and the list.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static inline int is_digit(Py_UCS4 c) {
    return c < 128 ? (c >= '0' && c <= '9') : Py_UNICODE_ISDECIMAL(c);
}

static inline int is_word(Py_UCS4 c) {
    if (c < 128)
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    return Py_UNICODE_ISALNUM(c);
}

static inline int is_lead(Py_UCS4 c) { return is_word(c) || c == ',' || c == '.' || c == '-'; }

static inline int is_file(Py_UCS4 c) { return is_word(c) || c == '.' || c == '/' || c == '-'; }

static inline int is_host(Py_UCS4 c) {
    switch (c) {
    case ':': case '[': case ']': case '<': case '>': case '|':
        return 0;
    default:
        return !Py_UNICODE_ISSPACE(c);
    }
}

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} Text;

static inline Py_UCS4 at(const Text *t, Py_ssize_t i) { return PyUnicode_READ(t->kind, t->data, i); }

/* End of the longest run of at most `max` characters from `i` that satisfy `pred`. */
static inline Py_ssize_t run(const Text *t, Py_ssize_t i, Py_ssize_t max, int (*pred)(Py_UCS4)) {
    Py_ssize_t end = (t->n - i > max) ? i + max : t->n;
    Py_ssize_t k = i;
    while (k < end && pred(at(t, k))) k++;
    return k;
}

/* A run of 1..max characters from `i`, then the character `next`: the index after it, or -1. */
static inline Py_ssize_t run_then(const Text *t, Py_ssize_t i, Py_ssize_t max, int (*pred)(Py_UCS4),
                                  Py_UCS4 next) {
    Py_ssize_t k = run(t, i, max, pred);
    if (k == i || k >= t->n || at(t, k) != next) return -1;
    return k + 1;
}

static inline int is(const Text *t, Py_ssize_t i, Py_UCS4 c) { return i < t->n && at(t, i) == c; }

static inline int nccl_at(const Text *t, Py_ssize_t k) {
    return is(t, k, 'N') && is(t, k + 1, 'C') && is(t, k + 2, 'C') && is(t, k + 3, 'L');
}

/* Whether the pattern matches at the newline at `i`; sets the ends of the lead and the host. */
static int match_at(const Text *t, Py_ssize_t i, Py_ssize_t *lead_end, Py_ssize_t *host_end) {
    Py_ssize_t h = i + 1; /* where the host starts: right after the newline when there is no lead */
    if (is(t, h, '[')) {
        Py_ssize_t k = run_then(t, h + 1, 32, is_lead, ']');
        if (k < 0) return 0;
        if (is(t, k, '<')) {
            k = run_then(t, k + 1, 8, is_word, '>');
            if (k < 0) return 0;
        }
        if (!is(t, k, ':')) return 0;
        k++;
        if (is(t, k, ' ')) k++;
        h = k;
    }
    Py_ssize_t e = run(t, h, 253, is_host);
    if (e == h) return 0;

    Py_ssize_t k = e;
    if (!is(t, k, ':')) return 0;
    if ((k = run_then(t, k + 1, 10, is_digit, ':')) < 0) return 0;
    if ((k = run_then(t, k, 10, is_digit, ' ')) < 0) return 0;
    if (!is(t, k, '[')) return 0;
    if ((k = run_then(t, k + 1, 4, is_digit, ']')) < 0) return 0;
    if (!is(t, k, ' ')) return 0;
    k++;
    if (nccl_at(t, k)) goto found;
    if ((k = run_then(t, k, 128, is_file, ':')) < 0) return 0;
    if ((k = run_then(t, k, 6, is_digit, ' ')) < 0) return 0;
    if (nccl_at(t, k)) goto found;
    return 0;
found:
    *lead_end = h;
    *host_end = e;
    return 1;
}

static int append(PyObject *list, PyObject *text, Py_ssize_t start, Py_ssize_t end) {
    PyObject *piece = PyUnicode_Substring(text, start, end);
    if (piece == NULL) return -1;
    int rc = PyList_Append(list, piece);
    Py_DECREF(piece);
    return rc;
}

static PyObject *split(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "split() takes str, not %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return NULL; /* a no-op from 3.12 on */
#endif
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t last = 0, pos = 0;
    while (pos < t.n) {
        Py_ssize_t i = PyUnicode_FindChar(text, '\n', pos, t.n, 1);
        if (i == -2) goto fail;
        if (i < 0) break;
        Py_ssize_t lead_end, host_end;
        if (!match_at(&t, i, &lead_end, &host_end)) {
            pos = i + 1;
            continue;
        }
        if (append(out, text, last, i) < 0 || append(out, text, i, lead_end) < 0 ||
            append(out, text, lead_end, host_end) < 0)
            goto fail;
        last = pos = host_end;
    }
    if (append(out, text, last, t.n) < 0) goto fail;
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"split", split, METH_O, "The NCCL prefix split of prefix_hosts._SPLIT, as a scanner."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_prefix_split",
    .m_doc = "NCCL prefix split (see prefix_hosts.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__prefix_split(void) { return PyModule_Create(&module); }
