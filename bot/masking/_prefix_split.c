/* The NCCL prefix split of bot/masking/prefix_hosts.py, written out as a scanner.
 *
 * On a 1,000-rank NCCL INFO log nearly every line opens with an NCCL prefix
 * (`[rank8]:host:pid:tid [dev] NCCL`), and masking replaces each prefix's host. `re` spends a
 * quarter of a microsecond matching each; this checks the same characters in a few
 * nanoseconds, and puts the placeholders in with one copy of the text:
 *
 *   scan(text) -> (spans, hosts): where prefix_hosts._SPLIT matches in "\n" + text, as packed
 *       Py_ssize_t triples (the newline, the host's start, its end; offsets into "\n" + text),
 *       and each match's host.
 *   split(text) -> list: exactly _SPLIT.split(text) (the reference the tests hold scan to).
 *   replace_hosts(text, spans, hosts, placeholders) -> str | None: `text` with each span's
 *       host replaced by placeholders[host] where it has one; None when a replaced host holds a
 *       non-ASCII character (the caller joins in Python: the result's kind would need a look).
 *
 * The regex stays the reference and the fallback (tests/test_masking_prefilter.py holds the
 * two to the same answer on every combination of the pattern's parts, Unicode included, and on
 * random text). The pattern, and why each step below needs no backtracking:
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
 * Every read is bounds-checked against the length of the str; replace_hosts checks the spans
 * it is given (inside the text, in order, one host each) before it copies anything.
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

static int ready(PyObject *text, const char *who, Text *t) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s() takes str, not %.100s", who, Py_TYPE(text)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return -1; /* a no-op from 3.12 on */
#endif
    t->kind = PyUnicode_KIND(text);
    t->data = PyUnicode_DATA(text);
    t->n = PyUnicode_GET_LENGTH(text);
    return 0;
}

/* The next newline at or after `pos`, -1 when none, -2 on error. */
static inline Py_ssize_t next_newline(PyObject *text, const Text *t, Py_ssize_t pos) {
    return pos >= t->n ? -1 : PyUnicode_FindChar(text, '\n', pos, t->n, 1);
}

static PyObject *split(PyObject *module, PyObject *text) {
    (void)module;
    Text t;
    if (ready(text, "split", &t) < 0) return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t last = 0, pos = 0;
    for (;;) {
        Py_ssize_t i = next_newline(text, &t, pos);
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

/* A growing array of Py_ssize_t. */
typedef struct {
    Py_ssize_t *v;
    Py_ssize_t len, cap;
} Offsets;

static int push(Offsets *o, Py_ssize_t a, Py_ssize_t b, Py_ssize_t c) {
    if (o->len + 3 > o->cap) {
        Py_ssize_t cap = o->cap ? o->cap * 2 : 3 * 1024;
        Py_ssize_t *v = PyMem_Realloc(o->v, (size_t)cap * sizeof(Py_ssize_t));
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        o->v = v;
        o->cap = cap;
    }
    o->v[o->len++] = a;
    o->v[o->len++] = b;
    o->v[o->len++] = c;
    return 0;
}

static PyObject *scan(PyObject *module, PyObject *text) {
    (void)module;
    Text t;
    if (ready(text, "scan", &t) < 0) return NULL;
    Offsets o = {NULL, 0, 0};
    PyObject *hosts = PyList_New(0), *spans = NULL, *out = NULL;
    if (hosts == NULL) return NULL;
    /* -1 stands for the newline put before the text; offsets out are into "\n" + text. */
    Py_ssize_t i = -1;
    for (;;) {
        Py_ssize_t lead_end, host_end, pos = i + 1;
        if (match_at(&t, i, &lead_end, &host_end)) {
            if (push(&o, i + 1, lead_end + 1, host_end + 1) < 0 || append(hosts, text, lead_end, host_end) < 0)
                goto done;
            pos = host_end;
        }
        i = next_newline(text, &t, pos);
        if (i == -2) goto done;
        if (i < 0) break;
    }
    spans = PyBytes_FromStringAndSize((const char *)o.v, o.len * (Py_ssize_t)sizeof(Py_ssize_t));
    if (spans != NULL) out = PyTuple_Pack(2, spans, hosts);
done:
    PyMem_Free(o.v);
    Py_XDECREF(spans);
    Py_DECREF(hosts);
    return out;
}

static PyObject *replace_hosts(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "replace_hosts() takes (text, spans, hosts, placeholders)");
        return NULL;
    }
    PyObject *text = args[0], *spans = args[1], *hosts = args[2], *placeholders = args[3];
    Text t;
    if (ready(text, "replace_hosts", &t) < 0) return NULL;
    if (!PyBytes_Check(spans) || !PyList_Check(hosts) || !PyDict_Check(placeholders)) {
        PyErr_SetString(PyExc_TypeError, "replace_hosts() takes (str, bytes, list, dict)");
        return NULL;
    }
    Py_ssize_t nbytes = PyBytes_GET_SIZE(spans), count = PyList_GET_SIZE(hosts);
    if (nbytes != count * 3 * (Py_ssize_t)sizeof(Py_ssize_t)) {
        PyErr_SetString(PyExc_ValueError, "replace_hosts(): spans and hosts disagree");
        return NULL;
    }
    const Py_ssize_t *v = (const Py_ssize_t *)PyBytes_AS_STRING(spans);
    /* First pass: check every span, look every placeholder up, size the result. */
    Py_ssize_t length = t.n, prev = 0;
    Py_UCS4 maxchar = PyUnicode_MAX_CHAR_VALUE(text);
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t start = v[3 * k + 1] - 1, end = v[3 * k + 2] - 1;
        PyObject *host = PyList_GET_ITEM(hosts, k);
        if (start < prev || end < start || end > t.n || !PyUnicode_Check(host) ||
            PyUnicode_GET_LENGTH(host) != end - start) {
            PyErr_SetString(PyExc_ValueError, "replace_hosts(): a span is out of order or out of the text");
            return NULL;
        }
        prev = end;
        PyObject *swap = PyDict_GetItemWithError(placeholders, host);
        if (swap == NULL) {
            if (PyErr_Occurred()) return NULL;
            continue;
        }
        if (!PyUnicode_Check(swap)) {
            PyErr_SetString(PyExc_TypeError, "replace_hosts(): a placeholder is not a str");
            return NULL;
        }
        if (PyUnicode_MAX_CHAR_VALUE(host) > 127) Py_RETURN_NONE; /* the result's kind would need a look */
        Py_UCS4 m = PyUnicode_MAX_CHAR_VALUE(swap);
        if (m > maxchar) maxchar = m;
        length += PyUnicode_GET_LENGTH(swap) - (end - start);
    }
    /* Every character of `text` that is not ASCII is kept, so `maxchar` is the result's own. */
    PyObject *out = PyUnicode_New(length, maxchar);
    if (out == NULL) return NULL;
    Py_ssize_t from = 0, to = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *swap = PyDict_GetItemWithError(placeholders, PyList_GET_ITEM(hosts, k));
        if (swap == NULL) {
            if (PyErr_Occurred()) goto fail;
            continue;
        }
        Py_ssize_t start = v[3 * k + 1] - 1, end = v[3 * k + 2] - 1;
        if (PyUnicode_CopyCharacters(out, to, text, from, start - from) < 0) goto fail;
        to += start - from;
        Py_ssize_t w = PyUnicode_GET_LENGTH(swap);
        if (PyUnicode_CopyCharacters(out, to, swap, 0, w) < 0) goto fail;
        to += w;
        from = end;
    }
    if (PyUnicode_CopyCharacters(out, to, text, from, t.n - from) < 0) goto fail;
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_O, "scan(text) -> (spans, hosts): the prefixes of \"\\n\" + text."},
    {"split", split, METH_O, "split(text) -> list: exactly prefix_hosts._SPLIT.split(text)."},
    {"replace_hosts", (PyCFunction)(void (*)(void))replace_hosts, METH_FASTCALL,
     "replace_hosts(text, spans, hosts, placeholders) -> str | None."},
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
