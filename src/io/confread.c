/* confread — reading a libconfig file. */
#include "corun/confread.h"

#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corun/util.h"

struct conf_file {
    config_t cfg;
    char *text;
};

/* The whole file into a heap string, or NULL with errno set. */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t len = 0, cap = 4096;
    char *buf = xmalloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    int err = ferror(fp) ? errno : 0;
    fclose(fp);
    if (err) {
        free(buf);
        errno = err;
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

struct conf_file *confread_open(const char *path, struct diag *diags)
{
    struct stat st;
    if (!path[0]) { /* `corun run ''`: say so rather than print an empty name */
        diag_add(diags, "an empty file name (expected a libconfig file)");
        return NULL;
    }
    if (stat(path, &st) != 0) {
        diag_add(diags, "%s: cannot open: %s (expected a libconfig file)", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_add(diags, "%s: cannot read: not a regular file (expected a libconfig file)", path);
        return NULL;
    }
    if (st.st_size > CONFREAD_MAX_BYTES) {
        diag_add(diags,
                 "%s: cannot read: %lld bytes, too large for a settings file (expected a libconfig "
                 "text file of at most %lld MiB)",
                 path, (long long)st.st_size, CONFREAD_MAX_BYTES >> 20);
        return NULL;
    }
    char *text = slurp(path);
    if (!text) {
        diag_add(diags, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    if (strncmp(text, "\211HDF\r\n\032\n", 8) == 0) { /* stops at a NUL, as the text may */
        diag_add(diags,
                 "%s: cannot read: an HDF5 file, a run file perhaps ('corun replay' opens one "
                 "in the workbench, 'corun show' prints it); expected a libconfig text file",
                 path);
        free(text);
        return NULL;
    }
    if (strlen(text) != (size_t)st.st_size) {
        diag_add(diags, "%s: cannot read: binary data (expected a libconfig text file)", path);
        free(text);
        return NULL;
    }
    struct conf_file *f = confread_parse(path, text, diags);
    free(text);
    return f;
}

/* Skip a comment or string literal starting at p; returns where scanning resumes (p itself
 * when there is none). Lines are counted in *line. */
static const char *skip_non_code(const char *p, int *line)
{
    if (*p == '#' || (p[0] == '/' && p[1] == '/'))
        return p + strcspn(p, "\n");
    const char *end = NULL;
    if (p[0] == '/' && p[1] == '*') {
        end = strstr(p + 2, "*/");
        end = end ? end + 2 : p + strlen(p);
    } else if (*p == '"') {
        end = p + 1;
        while (*end && *end != '"')
            end += end[0] == '\\' && end[1] ? 2 : 1;
        end += *end == '"';
    } else {
        return p;
    }
    for (const char *q = p; q < end; q++)
        *line += *q == '\n';
    return end;
}

/* libconfig 1.5 keeps an integer literal without the L suffix in 32 bits and wraps the rest
 * silently (4294967298 reads as 2). Give every literal outside that range its L, so that it
 * reads as the 64-bit number it is and range checks see it; one beyond 64 bits is refused.
 * Returns the text to parse (heap), or NULL with a message. With found (size bytes), the first
 * literal widened on line find_line is copied there ("" when there is none). */
static char *widen_integers(const char *name, const char *text, struct diag *diags, int find_line,
                            char *found, size_t size)
{
    size_t len = strlen(text);
    char *out = xmalloc(2 * len + 1); /* at most one L per two characters */
    char *o = out;
    int line = 1;
    const char *p = text;
    while (*p) {
        const char *q = skip_non_code(p, &line);
        if (q != p) {
            memcpy(o, p, (size_t)(q - p));
            o += q - p;
            p = q;
            continue;
        }
        bool word = isalpha((unsigned char)*p) || *p == '_' || *p == '*';
        if (word || !isdigit((unsigned char)*p)) {
            /* A name may hold digits (l1d): copy it whole. */
            do {
                line += *p == '\n';
                *o++ = *p++;
            } while (word && *p && (isalnum((unsigned char)*p) || strchr("-_*", *p)));
            continue;
        }
        const char *start = p;
        bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
        p += hex ? 2 : 0;
        while (hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p))
            p++;
        bool real = !hex && (*p == '.' || *p == 'e' || *p == 'E');
        /* The digits after a float's point or its exponent's sign belong to that float: an L
         * there made 0.3333333333 (its fraction past 32 bits) a syntax error. */
        bool in_float =
            start > text && (start[-1] == '.' || ((start[-1] == '+' || start[-1] == '-') &&
                                                  start - 1 > text && strchr("eE", start[-2])));
        bool negative = start > text && start[-1] == '-';
        size_t n = (size_t)(p - start);
        memcpy(o, start, n);
        o += n;
        if (real || in_float || *p == 'L')
            continue;
        errno = 0;
        unsigned long long v = strtoull(start, NULL, hex ? 16 : 10);
        if (errno == ERANGE || v > INT64_MAX) {
            diag_add(diags, "%s:%d: the integer %.*s is too large (expected at most %lld)", name,
                     line, (int)n, start, (long long)INT64_MAX);
            free(out);
            return NULL;
        }
        if (v > (negative ? (unsigned long long)INT32_MAX + 1 : (unsigned long long)INT32_MAX)) {
            *o++ = 'L';
            if (found && line == find_line && !*found)
                snprintf(found, size, "%s%.*s", negative ? "-" : "", (int)n, start);
        }
    }
    *o = '\0';
    return out;
}

/* The first name set twice in one group of text, copied to out (size bytes), as libconfig
 * refuses it ("duplicate setting name", which does not say which): each group's names are
 * kept until the group closes. Returns false when none is found. */
static bool duplicate_name(const char *text, char *out, size_t size)
{
    struct seen {
        const char *s;
        size_t n;
        int depth;
    } *seen = NULL;
    size_t nseen = 0, cap = 0;
    int depth = 0, line = 1;
    bool found = false;
    const char *p = text;
    while (*p && !found) {
        const char *q = skip_non_code(p, &line);
        if (q != p) {
            p = q;
            continue;
        }
        if (*p == '{' || *p == '}') {
            depth += *p == '{' ? 1 : -1;
            while (nseen && seen[nseen - 1].depth > depth) /* a closed group's names */
                nseen--;
            p++;
            continue;
        }
        if (!isalpha((unsigned char)*p) && *p != '*') {
            p++;
            continue;
        }
        const char *s = p;
        while (*p && (isalnum((unsigned char)*p) || strchr("-_*", *p)))
            p++;
        size_t n = (size_t)(p - s);
        const char *after = p + strspn(p, " \t\r\n");
        if (*after != '=' && *after != ':')
            continue; /* a value (true, a number's letters), not a setting's name */
        for (size_t i = 0; i < nseen && !found; i++)
            if (seen[i].depth == depth && seen[i].n == n && memcmp(seen[i].s, s, n) == 0) {
                snprintf(out, size, "%.*s", (int)n, s);
                found = true;
            }
        if (nseen == cap) {
            cap = cap ? 2 * cap : 16;
            seen = xrealloc(seen, cap * sizeof(*seen));
        }
        seen[nseen++] = (struct seen){s, n, depth};
    }
    free(seen);
    return found;
}

struct conf_file *confread_parse(const char *name, const char *text, struct diag *diags)
{
    char *wide = widen_integers(name, text, diags, 0, NULL, 0);
    if (!wide)
        return NULL;
    struct conf_file *f = xcalloc(1, sizeof(*f));
    f->text = xstrdup(text);
    config_init(&f->cfg);
    int ok = config_read_string(&f->cfg, wide);
    free(wide);
    char dup[64];
    if (ok != CONFIG_TRUE && strcmp(config_error_text(&f->cfg), "duplicate setting name") == 0 &&
        duplicate_name(text, dup, sizeof dup)) {
        diag_add(diags,
                 "%s:%d: %s: set twice in the same group (expected each setting once in a group)",
                 name, config_error_line(&f->cfg), dup);
        confread_close(f);
        return NULL;
    }
    /* An integer past 32 bits is a 64-bit one, and libconfig's arrays hold one type. */
    char big[32] = "";
    if (ok != CONFIG_TRUE &&
        strcmp(config_error_text(&f->cfg), "mismatched element type in array") == 0) {
        free(widen_integers(name, text, diags, config_error_line(&f->cfg), big, sizeof big));
        if (*big)
            diag_add(diags,
                     "%s:%d: %s is out of range in an array (expected whole numbers from "
                     "-2147483648 to 2147483647 there)",
                     name, config_error_line(&f->cfg), big);
        else
            diag_add(diags,
                     "%s:%d: an array mixes kinds of value (expected its elements all whole "
                     "numbers, all numbers with a decimal point, or all strings)",
                     name, config_error_line(&f->cfg));
        confread_close(f);
        return NULL;
    }
    if (ok != CONFIG_TRUE) {
        diag_add(diags,
                 "%s:%d: libconfig syntax: %s (expected settings of the form  name = value;)", name,
                 config_error_line(&f->cfg), config_error_text(&f->cfg));
        confread_close(f);
        return NULL;
    }
    return f;
}

void confread_close(struct conf_file *f)
{
    if (!f)
        return;
    config_destroy(&f->cfg);
    free(f->text);
    free(f);
}

const struct conf_group *confread_root(const struct conf_file *f)
{
    return (const struct conf_group *)config_root_setting(&f->cfg);
}

unsigned confread_single_depth(const struct conf_file *f)
{
    const config_setting_t *s = config_root_setting(&f->cfg);
    unsigned depth = 0;
    while (config_setting_is_group(s)) {
        if (config_setting_length(s) != 1)
            return 0;
        s = config_setting_get_elem(s, 0);
        depth++;
    }
    return depth;
}

const char *confread_text(const struct conf_file *f)
{
    return f->text;
}

/* The kinds of file corun reads, each known by a top-level setting no other kind has at its
 * top, and what takes it: pre, the file's path or name (its base name without .cfg, as a
 * lesson, a kernel or a preset is named) or nothing, then post. */
enum kind_arg { ARG_NONE, ARG_PATH, ARG_NAME };
static const struct {
    const char *what, *key, *pre;
    enum kind_arg arg;
    const char *post;
} kinds[] = {
    {"a lesson", "steps", "`corun lesson ", ARG_PATH, "` opens it"}, /* a name only in lessons/ */
    {"a suite", "mixes", "`corun sweep ", ARG_PATH, "` runs its mixes"},
    {"an accelerator scenario", "applications", "`corun run ", ARG_PATH, "` runs it"},
    {"a scenario", "kernels", "`corun run ", ARG_PATH, "` runs it"},
    {"a trained model", "model", "a predictor reads it from the data directory's data/models",
     ARG_NONE, ""},
    {"a kernel profile", "insts_per_warp",
     "in the data directory's data/kernels (`corun help kernel`), a scenario names it: kernels = "
     "( { name = \"",
     ARG_NAME, "\"; } );"},
    {"a GPU preset", "dram", "in the data directory's data/gpus, a scenario names it: gpu = \"",
     ARG_NAME, "\";"},
    {"an application profile", "tasks",
     "in the data directory's data/apps (`corun help accelerator`), an accelerator scenario names "
     "it: applications = ( { name = \"",
     ARG_NAME, "\"; ... } );"},
};

char *confread_kind_hint(const struct conf_file *f, const char *path, const char *key,
                         const char *want)
{
    const config_setting_t *root = config_root_setting(&f->cfg);
    if (config_setting_get_member(root, key))
        return NULL;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(kinds); i++) {
        if (strcmp(kinds[i].key, key) == 0 || !config_setting_get_member(root, kinds[i].key))
            continue;
        const char *arg = kinds[i].arg == ARG_NONE ? "" : path;
        int len = (int)strlen(arg);
        if (kinds[i].arg == ARG_NAME) {
            const char *slash = strrchr(path, '/');
            arg = slash ? slash + 1 : path;
            len = (int)strlen(arg);
            if (len > 4 && strcmp(arg + len - 4, ".cfg") == 0)
                len -= 4;
        }
        /* Applications without mode = "accelerator" are read as a spatial scenario's
         * settings: what is missing is the mode. */
        const char *mode = NULL;
        if (strcmp(kinds[i].key, "applications") == 0 &&
            !(config_lookup_string(&f->cfg, "mode", &mode) == CONFIG_TRUE &&
              strcmp(mode, "accelerator") == 0))
            return xasprintf("%s: applications without mode = \"accelerator\": an accelerator "
                             "scenario says so, and then `corun run %s` runs it",
                             path, path);
        return xasprintf("%s: %s (it has %s and no %s), not %s: %s%.*s%s", path, kinds[i].what,
                         kinds[i].key, key, want, kinds[i].pre, len, arg, kinds[i].post);
    }
    return NULL;
}

bool confread_probeable(const char *path)
{
    /* A FIFO's open waits for a writer (`corun check FIFO` hung): the loader that comes next
     * refuses what is not a regular file, or too large a one, with a message. */
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= CONFREAD_MAX_BYTES;
}

int confread_probe_any(const char *path, const char *const *keys, size_t n)
{
    if (!confread_probeable(path))
        return -1;
    config_t cfg;
    config_init(&cfg);
    int rc = -1;
    if (config_read_file(&cfg, path) == CONFIG_TRUE)
        for (rc = 0; !rc && n--; keys++)
            rc = config_lookup(&cfg, *keys) != NULL;
    config_destroy(&cfg);
    return rc;
}

int confread_probe(const char *path, const char *key)
{
    return confread_probe_any(path, &key, 1);
}
