/* tempfile — a file written beside its target under a name nobody else's file has. */
#include "corun/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corun/util.h"

char *tempfile_name(const char *path, const char *tag, unsigned n)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    char *tmp = xasprintf("%s.%s-%ld-%u", path, tag, (long)getpid(), n);
    if (strlen(tmp) - (size_t)(base - path) <= 255)
        return tmp;
    free(tmp);
    return xasprintf("%.*s.corun-%s-%ld-%u", (int)(base - path), path, tag, (long)getpid(), n);
}

FILE *tempfile_open(const char *path, char **tmp_out, char *err, size_t errlen)
{
    for (unsigned n = 0;; n++) {
        char *tmp = tempfile_name(path, "tmp", n);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (fp) {
            *tmp_out = tmp;
            return fp;
        }
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        if (e != EEXIST || n == 100) {
            snprintf(err, errlen, "%s: cannot write: %s (creating %s beside it)", path, strerror(e),
                     tmp);
            free(tmp);
            return NULL;
        }
        free(tmp);
    }
}

char *tempfile_link(const char *path, char *err, size_t errlen)
{
    for (unsigned n = 0;; n++) {
        char *tmp = tempfile_name(path, "tmp", n);
        if (link(path, tmp) == 0)
            return tmp;
        int e = errno;
        if (e != EEXIST || n == 100) {
            snprintf(err, errlen, "%s: cannot link it to %s beside it: %s", path, tmp, strerror(e));
            free(tmp);
            return NULL;
        }
        free(tmp);
    }
}
