/* confread — reading a libconfig file. */
#include "corun/confread.h"

#include <errno.h>
#include <libconfig.h>
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
    if (stat(path, &st) != 0) {
        diag_add(diags, "%s: cannot open: %s (expected a libconfig file)", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_add(diags, "%s: cannot read: not a regular file (expected a libconfig file)", path);
        return NULL;
    }
    char *text = slurp(path);
    if (!text) {
        diag_add(diags, "%s: cannot read: %s", path, strerror(errno));
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

struct conf_file *confread_parse(const char *name, const char *text, struct diag *diags)
{
    struct conf_file *f = xcalloc(1, sizeof(*f));
    f->text = xstrdup(text);
    config_init(&f->cfg);
    if (config_read_string(&f->cfg, text) != CONFIG_TRUE) {
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

const char *confread_text(const struct conf_file *f)
{
    return f->text;
}
