/* The NCCL prefix split of bot/masking/prefix_hosts.py, written out as a scanner.
 *
 * split(data: bytes) -> list[bytes] returns exactly what prefix_hosts._SPLIT_BYTES.split(data)
 * returns: [before, lead, host, before, lead, host, ..., before], one triple per line-leading
 * NCCL prefix (`\n[rank8]:host:pid:tid [dev] NCCL`). On a 1,000-rank NCCL INFO log nearly
 * every line is one, and `re` spends about a quarter of a microsecond matching each; this
 * checks the same bytes in a few nanoseconds. The regex stays the reference and the fallback
 * (tests/test_masking_prefilter.py holds the two to the same answer on every combination of
 * the pattern's parts, and on random bytes).
 *
 * The pattern, and why each step below needs no backtracking:
 *
 *   (\n(?:\[[\w,.-]{1,32}+\](?:<\w{1,8}+>|): ?|))     group 1: the newline and the lead
 *   ([^\s:\[\]<>|]{1,253}+)                           group 2: the host
 *   (?=:\d{1,10}+:\d{1,10}+ \[\d{1,4}+\]              the tail, looked at, not taken
 *      (?:NCCL|[\w./-]{1,128}:\d{1,6} NCCL))
 *
 * (\w, \d, \s are what str's classes hold below 128; \s includes \x1c-\x1f.) Every run is
 * followed by a byte the run's class excludes, so a shorter run can never be followed by it:
 * taking the longest run (up to its bound) and checking the next byte decides. When the line opens with `[`, only the lead can match (a
 * host cannot start with `[`); `<\w+>` and `:` after the `]` exclude each other; a host
 * cannot start with a blank, so the blank after the lead's colon is taken when present.
 *
 * Every read is bounds-checked against the length of the bytes object; nothing is written
 * but new bytes objects and the list.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static inline int is_word(unsigned char c) {
    return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static inline int is_lead(unsigned char c) { return is_word(c) || c == ',' || c == '.' || c == '-'; }

static inline int is_file(unsigned char c) { return is_word(c) || c == '.' || c == '/' || c == '-'; }

static inline int is_host(unsigned char c) {
    switch (c) {
    case '\t': case '\n': case 0x0b: case 0x0c: case '\r': case ' ':
    case 0x1c: case 0x1d: case 0x1e: case 0x1f: /* str's \s holds these too */
    case ':': case '[': case ']': case '<': case '>': case '|':
        return 0;
    default:
        return 1;
    }
}

/* End of the longest run of at most `max` bytes from `i` that satisfy `pred`. */
static inline Py_ssize_t run(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t max,
                             int (*pred)(unsigned char)) {
    Py_ssize_t end = (n - i > max) ? i + max : n;
    Py_ssize_t k = i;
    while (k < end && pred(s[k])) k++;
    return k;
}

/* A run of 1..max bytes from `i`, then the byte `next`: the index after `next`, or -1. */
static inline Py_ssize_t run_then(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t max,
                                  int (*pred)(unsigned char), unsigned char next) {
    Py_ssize_t k = run(s, n, i, max, pred);
    if (k == i || k >= n || s[k] != next) return -1;
    return k + 1;
}

/* Whether the pattern matches at the newline s[i]; sets the ends of the lead and the host. */
static int match_at(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t *lead_end,
                    Py_ssize_t *host_end) {
    Py_ssize_t h = i + 1; /* where the host starts: right after the newline when there is no lead */
    if (h < n && s[h] == '[') {
        Py_ssize_t k = run_then(s, n, h + 1, 32, is_lead, ']');
        if (k < 0) return 0;
        if (k < n && s[k] == '<') {
            k = run_then(s, n, k + 1, 8, is_word, '>');
            if (k < 0) return 0;
        }
        if (k >= n || s[k] != ':') return 0;
        k++;
        if (k < n && s[k] == ' ') k++;
        h = k;
    }
    Py_ssize_t e = run(s, n, h, 253, is_host);
    if (e == h) return 0;

    Py_ssize_t k = e;
    if (k >= n || s[k] != ':') return 0;
    if ((k = run_then(s, n, k + 1, 10, is_digit, ':')) < 0) return 0;
    if ((k = run_then(s, n, k, 10, is_digit, ' ')) < 0) return 0;
    if (k >= n || s[k] != '[') return 0;
    if ((k = run_then(s, n, k + 1, 4, is_digit, ']')) < 0) return 0;
    if (k >= n || s[k] != ' ') return 0;
    k++;
    if (n - k >= 4 && memcmp(s + k, "NCCL", 4) == 0) goto found;
    if ((k = run_then(s, n, k, 128, is_file, ':')) < 0) return 0;
    if ((k = run_then(s, n, k, 6, is_digit, ' ')) < 0) return 0;
    if (n - k >= 4 && memcmp(s + k, "NCCL", 4) == 0) goto found;
    return 0;
found:
    *lead_end = h;
    *host_end = e;
    return 1;
}

static int append(PyObject *list, const unsigned char *s, Py_ssize_t len) {
    PyObject *piece = PyBytes_FromStringAndSize((const char *)s, len);
    if (piece == NULL) return -1;
    int rc = PyList_Append(list, piece);
    Py_DECREF(piece);
    return rc;
}

static PyObject *split(PyObject *module, PyObject *arg) {
    (void)module;
    if (!PyBytes_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "split() takes bytes, not %.100s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(arg);
    Py_ssize_t n = PyBytes_GET_SIZE(arg);
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t last = 0, pos = 0;
    while (pos < n) {
        const unsigned char *nl = memchr(s + pos, '\n', (size_t)(n - pos));
        if (nl == NULL) break;
        Py_ssize_t i = nl - s, lead_end, host_end;
        if (!match_at(s, n, i, &lead_end, &host_end)) {
            pos = i + 1;
            continue;
        }
        if (append(out, s + last, i - last) < 0 || append(out, s + i, lead_end - i) < 0 ||
            append(out, s + lead_end, host_end - lead_end) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        last = pos = host_end;
    }
    if (append(out, s + last, n - last) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyMethodDef methods[] = {
    {"split", split, METH_O, "The NCCL prefix split of prefix_hosts._SPLIT_BYTES, as a scanner."},
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
