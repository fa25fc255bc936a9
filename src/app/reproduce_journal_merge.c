/* reproduce_journal_merge — joining journals: the shards of one run (repro_journal_merge), and
 * another build's journal of the same run once the records both hold agree
 * (repro_journal_adopt). The journal format is in reproduce_journal.c. */
#include "corun/reproduce_journal.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "corun/util.h"

/* Copies into dst every record of src it does not hold, counting in *out. 0, or -1 with a
 * message when a write fails (the records copied before it stay). */
static int copy_missing(struct repro_journal *dst, const struct repro_journal *src,
                        struct repro_journal_merged *out, char *err, size_t errlen)
{
    for (size_t i = 0; i < repro_journal_count(src); i++) {
        unsigned part;
        size_t index;
        const void *result = repro_journal_at(src, i, &part, &index);
        if (repro_journal_get(dst, part, index)) {
            out->present++;
            continue;
        }
        if (repro_journal_put(dst, part, index, result, err, errlen) != 0)
            return -1;
        out->added++;
    }
    return 0;
}

/* The run identity and result size of the journal at path, from its header, into *identity
 * (heap) and *result_size. 0, or -1 with a message. */
static int read_identity(const char *path, char **identity, size_t *result_size, char *err,
                         size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char *line1 = NULL, *line2 = NULL;
    size_t cap1 = 0, cap2 = 0;
    ssize_t n1 = getline(&line1, &cap1, f), n2 = n1 > 0 ? getline(&line2, &cap2, f) : -1;
    fclose(f);
    const char *sep = n2 > 0 ? strstr(line2, " | result ") : NULL;
    unsigned long long size = 0;
    int rc = -1;
    if (n1 <= 0 || strcmp(line1, REPRO_JOURNAL_MAGIC_LINE "\n") != 0)
        snprintf(err, errlen, "%s: not a corun reproduce journal (no '%s' line)", path,
                 REPRO_JOURNAL_MAGIC_LINE);
    else if (!sep || sscanf(sep, " | result %llu bytes", &size) != 1 || size == 0 ||
             size > UINT32_MAX)
        snprintf(err, errlen, "%s: its run identity line is cut short or damaged", path);
    else
        rc = 0;
    if (rc == 0) {
        *identity = xasprintf("%.*s", (int)(sep - line2), line2);
        *result_size = (size_t)size;
    }
    free(line1);
    free(line2);
    return rc;
}

int repro_journal_merge(const char *into, const char *from, const char *datadir,
                        struct repro_journal_merged *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *identity = NULL;
    size_t result_size = 0;
    if (read_identity(from, &identity, &result_size, err, errlen) != 0)
        return -1;
    char build[REPRO_BUILD_ID_LEN], data[REPRO_BUILD_ID_LEN];
    repro_build_id(build, sizeof build);
    repro_data_id(datadir, data, sizeof data);
    char *ours = xasprintf("; corun build %s, data %s", build, data);
    if (!util_ends_with(identity, ours)) {
        snprintf(err, errlen,
                 "%s: written by another build of corun or with other data (its run: %s); this "
                 "corun is build %s, data %s: run that shard again with this corun",
                 from, identity, build, data);
        free(ours);
        free(identity);
        return -1;
    }
    free(ours);
    /* A journal of another run than the one merged into: the one given to merge is the odd
     * one (the journal opened below would blame the target and advise removing it). */
    char *theirs = NULL;
    size_t their_size = 0;
    char ignored[64];
    if (access(into, F_OK) == 0 &&
        read_identity(into, &theirs, &their_size, ignored, sizeof ignored) == 0 &&
        strcmp(theirs, identity) != 0) {
        char *only_from = repro_identity_items_not_in(identity, theirs);
        char *only_into = repro_identity_items_not_in(theirs, identity);
        snprintf(err, errlen,
                 "%s: written for another run than %s (it holds: %s; %s holds: %s); merge it "
                 "into a journal of its own run",
                 from, into, *only_from ? only_from : identity, into,
                 *only_into ? only_into : theirs);
        free(only_from);
        free(only_into);
        free(theirs);
        free(identity);
        return -1;
    }
    free(theirs);
    struct repro_journal *src = repro_journal_open_source(from, identity, result_size, err, errlen);
    struct repro_journal *dst =
        src ? repro_journal_open(into, identity, result_size, err, errlen) : NULL;
    if (src) {
        out->dropped = repro_journal_dropped(src);
        out->damaged = repro_journal_damaged(src);
    }
    int rc = dst ? copy_missing(dst, src, out, err, errlen) : -1;
    repro_journal_close(dst);
    repro_journal_close(src);
    free(identity);
    return rc;
}

/* Splits a run identity at its "; corun build B, data D" tail: the run's description in
 * *what (heap) and the two ids. 0, or -1 when the tail is missing. */
static int split_identity(const char *identity, char **what, char build[REPRO_BUILD_ID_LEN],
                          char data[REPRO_BUILD_ID_LEN])
{
    const char *tail = NULL;
    for (const char *p = strstr(identity, "; corun build "); p; p = strstr(p + 1, "; corun build "))
        tail = p;
    if (!tail || sscanf(tail, "; corun build %16[0-9a-z-], data %16[0-9a-f]", build, data) != 2)
        return -1;
    *what = xasprintf("%.*s", (int)(tail - identity), identity);
    return 0;
}

int repro_journal_adopt(const char *into, const char *from, const char *datadir,
                        repro_result_bytes_fn result_bytes, struct repro_journal_merged *out,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *fid = NULL, *iid = NULL, *fwhat = NULL, *iwhat = NULL;
    size_t fsize = 0, isize = 0;
    char fbuild[REPRO_BUILD_ID_LEN], fdata[REPRO_BUILD_ID_LEN];
    char ibuild[REPRO_BUILD_ID_LEN], idata[REPRO_BUILD_ID_LEN];
    char build[REPRO_BUILD_ID_LEN], data[REPRO_BUILD_ID_LEN];
    repro_build_id(build, sizeof build);
    repro_data_id(datadir, data, sizeof data);
    struct repro_journal *src = NULL, *dst = NULL;
    int rc = -1;
    if (read_identity(from, &fid, &fsize, err, errlen) != 0)
        goto done;
    if (access(into, F_OK) != 0) {
        snprintf(err, errlen,
                 "%s: no such journal: adopting needs one of this build's that holds one of "
                 "%s's cells or pairs (run it into %s with --shard K/N --resume %s first)",
                 into, from, into, into);
        goto done;
    }
    if (read_identity(into, &iid, &isize, err, errlen) != 0)
        goto done;
    if (split_identity(iid, &iwhat, ibuild, idata) != 0 || strcmp(ibuild, build) != 0 ||
        strcmp(idata, data) != 0) {
        snprintf(err, errlen,
                 "%s: not a journal of this build of corun with this data (build %s, data %s), "
                 "so it cannot vouch for %s: run one of that journal's cells or pairs into it "
                 "with this corun first (--shard K/N --resume %s)",
                 into, build, data, from, into);
        goto done;
    }
    if (split_identity(fid, &fwhat, fbuild, fdata) != 0 || strcmp(fwhat, iwhat) != 0 ||
        fsize != isize) {
        char *only_from = repro_identity_items_not_in(fid, iid);
        char *only_into = repro_identity_items_not_in(iid, fid);
        snprintf(err, errlen, "%s: belongs to another run (it holds: %s; %s holds: %s)", from,
                 *only_from ? only_from : fid, into, *only_into ? only_into : iid);
        free(only_into);
        free(only_from);
        goto done;
    }
    if (strcmp(fdata, data) != 0) {
        snprintf(err, errlen,
                 "%s: made with other data (data %s; this corun's is %s): its results may "
                 "differ anywhere, so it is not adopted",
                 from, fdata, data);
        goto done;
    }
    src = repro_journal_open_source(from, fid, fsize, err, errlen);
    dst = src ? repro_journal_open(into, iid, isize, err, errlen) : NULL;
    if (!dst)
        goto done;
    out->dropped = repro_journal_dropped(src);
    out->damaged = repro_journal_damaged(src);
    /* First the records both hold, each simulated by both builds: byte for byte the same (a
     * journal of this very build needs no such check, as in a plain merge). */
    bool same_build = strcmp(fbuild, build) == 0;
    size_t compared = result_bytes ? result_bytes(fwhat, fsize) : fsize;
    assert(compared <= fsize);
    for (size_t i = 0; !same_build && i < repro_journal_count(src); i++) {
        unsigned part;
        size_t index;
        const void *theirs = repro_journal_at(src, i, &part, &index);
        const void *mine = repro_journal_get(dst, part, index);
        if (!mine)
            continue;
        if (memcmp(mine, theirs, compared) != 0) {
            snprintf(err, errlen,
                     "%s: its record %u/%zu differs from %s's: build %s and this one (%s) give "
                     "other results, so nothing of it is adopted",
                     from, part, index, into, fbuild, build);
            goto done;
        }
        out->verified++;
    }
    if (!same_build && out->verified == 0) {
        snprintf(err, errlen,
                 "%s: shares no record with %s, so nothing shows that build %s gives this "
                 "build's results: run one of its cells or pairs into %s with this corun first "
                 "(--shard K/N --resume %s)",
                 from, into, fbuild, into, into);
        goto done;
    }
    rc = copy_missing(dst, src, out, err, errlen);
done:
    repro_journal_close(dst);
    repro_journal_close(src);
    free(fid);
    free(iid);
    free(fwhat);
    free(iwhat);
    return rc;
}
