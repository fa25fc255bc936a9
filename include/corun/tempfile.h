/* tempfile — a file written beside its target under a name nobody else's file has, to be
 * renamed over the target when whole. */
#ifndef CORUN_TEMPFILE_H
#define CORUN_TEMPFILE_H

#include <stddef.h>
#include <stdio.h>

/* The n-th name of this process's own beside path: PATH.TAG-PID-N, or .corun-TAG-PID-N in
 * its directory when that would pass the 255 bytes a file name may have (a legal name near the
 * limit was refused). The caller frees it. */
char *tempfile_name(const char *path, const char *tag, unsigned n);

/* A new file beside path, under a name no other file there has (PATH.tmp-PID-N, or
 * .corun-tmp-PID-N in its directory when that name would be too long), created with O_EXCL
 * (mode 0666 less the umask) and opened for writing; *tmp_out is its name (the caller frees
 * it, and unlinks the file when it is not renamed). NULL with a message naming path when the
 * directory refuses it. Unique, so that two writers to one path and a user's own PATH.tmp are
 * not written over. */
FILE *tempfile_open(const char *path, char **tmp_out, char *err, size_t errlen);

/* A new hard link to the file path, beside it under a name of its own as tempfile_open's; the
 * caller frees the name (and unlinks or renames the link). NULL with a message naming path
 * when it cannot be made (a file system without hard links, say). */
char *tempfile_link(const char *path, char *err, size_t errlen);

#endif
