/* slurm — a job directory: its manifest, its batch script, submitting it with sbatch, and the
 * state files its tasks write. Progress and merging are in slurm_status.c. */
#include "corun/slurm.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "corun/catalog.h"
#include "corun/spawn.h"
#include "corun/tempfile.h"
#include "corun/util.h"
#include "corun_sim_id.h"

#define MANIFEST_MAGIC "corun slurm job 1"

static const char *const kind_names[] = {"sweep", "reproduce"};

char *slurm_jobs_root(void)
{
    char *catalog = catalog_default_path();
    if (!catalog)
        return NULL;
    char *slash = strrchr(catalog, '/');
    char *root = xasprintf("%.*s/slurm", slash ? (int)(slash - catalog) : 0, catalog);
    free(catalog);
    return root;
}

char *slurm_shard_path(const struct slurm_job *j, unsigned k, const char *what)
{
    return xasprintf("%s/shard-%u.%s", j->dir, k, what);
}

/* mkdir -p. 0, or -1 with a message. */
static int make_dirs(const char *path, char *err, size_t errlen)
{
    char *p = xstrdup(path);
    int rc = 0;
    for (char *s = p + 1; rc == 0; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create directory %s: %s", p, strerror(errno));
            rc = -1;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    free(p);
    return rc;
}

/* Write text to path through a temporary file of its own (tempfile_open: never a user's file,
 * nor another writer's) and a rename, so that a reader never sees half; the temporary file is
 * removed when anything fails. */
static int write_file(const char *path, const char *text, int mode, char *err, size_t errlen)
{
    char *tmp = NULL;
    FILE *f = tempfile_open(path, &tmp, err, errlen);
    if (!f)
        return -1;
    int rc = fputs(text, f) >= 0 ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    if (rc == 0 && (chmod(tmp, (mode_t)mode) != 0 || rename(tmp, path) != 0))
        rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

/* Add the manifest line "key value" to *text. */
static void append(char **text, const char *key, const char *value)
{
    char *next = xasprintf("%s%s %s\n", *text, key, value);
    free(*text);
    *text = next;
}

static int write_manifest(const struct slurm_job *j, char *err, size_t errlen)
{
    char *text = xasprintf("%s\nkind %s\nshards %u\nsimulator %u\n", MANIFEST_MAGIC,
                           kind_names[j->kind], j->shards, j->simulator);
    append(&text, "dir", j->dir);
    append(&text, "cwd", j->cwd);
    if (j->catalog)
        append(&text, "catalog", j->catalog);
    if (j->journal)
        append(&text, "journal", j->journal);
    for (int i = 0; i < j->nsbatch; i++)
        append(&text, "sbatch", j->sbatch[i]);
    for (int i = 0; i < j->argc; i++)
        append(&text, "arg", j->argv[i]);
    for (int i = 0; i < j->njobs; i++) {
        char *both = xasprintf("%s %s", j->jobs[i], j->job_shards[i]);
        append(&text, "submitted", both);
        free(both);
    }
    char *path = xasprintf("%s/job", j->dir);
    int rc = write_file(path, text, 0644, err, errlen);
    free(path);
    free(text);
    return rc;
}

static void push(char ***list, int *n, const char *s)
{
    *list = xrealloc(*list, (size_t)(*n + 2) * sizeof(**list));
    (*list)[(*n)++] = xstrdup(s);
    (*list)[*n] = NULL;
}

/* 'text' for sh: single quotes, each ' written '\''. Heap. */
static char *sh_quote(const char *text)
{
    size_t n = 3;
    for (const char *p = text; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = xmalloc(n), *o = q;
    *o++ = '\'';
    for (const char *p = text; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

static int write_script(const struct slurm_job *j, const char *exe, char *err, size_t errlen)
{
    char *qexe = sh_quote(exe), *qdir = sh_quote(j->dir);
    char *text = xasprintf("#!/bin/sh\n# Written by corun: each task of the array runs one shard "
                           "of the job in this directory.\nexec %s slurm task %s\n",
                           qexe, qdir);
    char *path = xasprintf("%s/task.sh", j->dir);
    int rc = write_file(path, text, 0755, err, errlen);
    free(path);
    free(text);
    free(qexe);
    free(qdir);
    return rc;
}

/* Whether name is one the job writes in its directory (job is checked apart; its files' own
 * temporary names, PATH.tmp-PID-N, are made with O_EXCL and never meet a user's). */
static bool job_name(const char *name)
{
    return !strcmp(name, "task.sh") || !strcmp(name, "results.journal") ||
           !strncmp(name, "shard-", 6);
}

/* The first name in dir that the job would write, in *name; false when there is none. */
static bool first_job_name(const char *dir, char *name, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e = NULL;
    while (d && (e = readdir(d)) && !job_name(e->d_name))
        ;
    if (e)
        snprintf(name, len, "%s", e->d_name);
    if (d)
        closedir(d);
    return e != NULL;
}

/* The job directory o asks for, made: o->dir (its files of other names stay; one of a name the
 * job writes is refused: a task.sh there was written over by the job's, and removed when
 * sbatch failed) or a new one. */
static char *make_job_dir(const struct slurm_options *o, char *err, size_t errlen)
{
    if (o->dir) {
        char *manifest = xasprintf("%s/job", o->dir);
        int exists = access(manifest, F_OK) == 0;
        free(manifest);
        if (exists) {
            snprintf(err, errlen,
                     "%s holds a job already; give another --slurm-dir, or run its missing "
                     "shards with `corun slurm resubmit %s`",
                     o->dir, o->dir);
            return NULL;
        }
        char name[256];
        if (first_job_name(o->dir, name, sizeof name)) {
            snprintf(err, errlen,
                     "--slurm-dir %s holds %s already, a name the job writes there (job, "
                     "task.sh, shard-K.*, results.journal); give another directory, or move it",
                     o->dir, name);
            return NULL;
        }
        if (make_dirs(o->dir, err, errlen) != 0)
            return NULL;
        return util_absolute_path(o->dir);
    }
    char *root = slurm_jobs_root();
    if (!root) {
        snprintf(err, errlen, "neither XDG_DATA_HOME nor HOME is set; give --slurm-dir DIR");
        return NULL;
    }
    char *templ = xasprintf("%s/job-XXXXXX", root);
    char *dir = NULL;
    if (make_dirs(root, err, errlen) == 0 && !(dir = mkdtemp(templ)))
        snprintf(err, errlen, "cannot create a job directory in %s: %s", root, strerror(errno));
    free(root);
    if (!dir)
        free(templ);
    return dir;
}

struct slurm_job *slurm_job_create(const struct slurm_options *o, enum slurm_kind kind, int argc,
                                   char *const *argv, const char *catalog, const char *journal,
                                   const char *exe, char *err, size_t errlen)
{
    for (int i = 0; i < argc; i++)
        if (strchr(argv[i], '\n')) {
            snprintf(err, errlen, "--slurm: argument %d has a line break, which a job cannot keep",
                     i + 1);
            return NULL;
        }
    char *dir = make_job_dir(o, err, errlen);
    if (!dir)
        return NULL;
    struct slurm_job *j = xcalloc(1, sizeof *j);
    j->dir = dir;
    j->kind = kind;
    j->shards = o->shards;
    j->simulator = CORUN_SIM_ID;
    char cwd[4096];
    j->cwd = xstrdup(getcwd(cwd, sizeof cwd) ? cwd : ".");
    j->catalog = catalog ? util_absolute_path(catalog) : NULL;
    if (kind == SLURM_REPRODUCE)
        j->journal = journal ? util_absolute_path(journal) : xasprintf("%s/results.journal", dir);
    for (int i = 0; i < argc; i++)
        push(&j->argv, &j->argc, argv[i]);
    char opt[512];
    if (o->partition)
        push(&j->sbatch, &j->nsbatch,
             (snprintf(opt, sizeof opt, "--partition=%s", o->partition), opt));
    if (o->time)
        push(&j->sbatch, &j->nsbatch, (snprintf(opt, sizeof opt, "--time=%s", o->time), opt));
    if (o->account)
        push(&j->sbatch, &j->nsbatch, (snprintf(opt, sizeof opt, "--account=%s", o->account), opt));
    if (o->cpus_per_task)
        push(&j->sbatch, &j->nsbatch,
             (snprintf(opt, sizeof opt, "--cpus-per-task=%u", o->cpus_per_task), opt));
    for (size_t i = 0; i < o->nsbatch_args; i++)
        push(&j->sbatch, &j->nsbatch, o->sbatch_args[i]);
    if (write_manifest(j, err, errlen) != 0 || write_script(j, exe, err, errlen) != 0) {
        slurm_job_discard(j, !o->dir);
        return NULL;
    }
    return j;
}

void slurm_job_delete(struct slurm_job *j)
{
    if (!j)
        return;
    char **lists[] = {j->argv, j->sbatch, j->jobs, j->job_shards};
    int counts[] = {j->argc, j->nsbatch, j->njobs, j->njobs};
    for (size_t l = 0; l < CORUN_ARRAY_LEN(lists); l++) {
        for (int i = 0; i < counts[l]; i++)
            free(lists[l][i]);
        free(lists[l]);
    }
    free(j->dir);
    free(j->made_in);
    free(j->cwd);
    free(j->catalog);
    free(j->journal);
    free(j);
}

void slurm_job_discard(struct slurm_job *j, bool remove_dir)
{
    if (!j)
        return;
    const char *const files[] = {"job", "task.sh"};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(files); i++) {
        char *path = xasprintf("%s/%s", j->dir, files[i]);
        unlink(path);
        free(path);
    }
    if (remove_dir)
        rmdir(j->dir);
    slurm_job_delete(j);
}

/* ---- loading ---- */

/* One manifest line "key value" into j. 0, or -1 when it is not one. */
static int take_line(struct slurm_job *j, char *line)
{
    char *value = strchr(line, ' ');
    if (!value)
        return -1;
    *value++ = '\0';
    if (strcmp(line, "kind") == 0) {
        int found = -1;
        for (size_t i = 0; i < CORUN_ARRAY_LEN(kind_names); i++)
            if (strcmp(value, kind_names[i]) == 0)
                found = (int)i;
        j->kind = (enum slurm_kind)found;
        return found < 0 ? -1 : 0;
    }
    if (strcmp(line, "shards") == 0)
        return sscanf(value, "%u", &j->shards) == 1 ? 0 : -1;
    if (strcmp(line, "simulator") == 0)
        return sscanf(value, "%u", &j->simulator) == 1 ? 0 : -1;
    char **field = strcmp(line, "dir") == 0       ? &j->made_in
                   : strcmp(line, "cwd") == 0     ? &j->cwd
                   : strcmp(line, "catalog") == 0 ? &j->catalog
                   : strcmp(line, "journal") == 0 ? &j->journal
                                                  : NULL;
    if (field) {
        free(*field);
        *field = xstrdup(value);
    } else if (strcmp(line, "arg") == 0) {
        push(&j->argv, &j->argc, value);
    } else if (strcmp(line, "sbatch") == 0) {
        push(&j->sbatch, &j->nsbatch, value);
    } else if (strcmp(line, "submitted") == 0) {
        char *shards = strchr(value, ' ');
        if (!shards)
            return -1;
        *shards++ = '\0';
        int n = j->njobs;
        push(&j->jobs, &n, value);
        push(&j->job_shards, &j->njobs, shards);
    } else {
        return -1;
    }
    return 0;
}

/* The directory `job` names: itself, or the one the index keeps for a job id. Heap. */
static char *job_dir(const char *job, char *err, size_t errlen)
{
    struct stat st;
    if (stat(job, &st) == 0 && S_ISDIR(st.st_mode))
        return util_absolute_path(job);
    char *root = slurm_jobs_root();
    char *link = root ? xasprintf("%s/ids/%s", root, job) : NULL;
    char target[4096];
    ssize_t n = link && strspn(job, "0123456789") == strlen(job) && *job
                    ? readlink(link, target, sizeof target - 1)
                    : -1;
    if (n < 0)
        snprintf(err, errlen,
                 "no job '%s': expected a job directory or the id of a job submitted with "
                 "--slurm (known ids are in %s/ids)",
                 job, root ? root : "$XDG_DATA_HOME/corun/slurm");
    free(root);
    free(link);
    if (n < 0)
        return NULL;
    target[n] = '\0';
    return xstrdup(target);
}

/* Whether paths a and b are one directory (the same file, whatever the spelling). */
static bool same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

struct slurm_job *slurm_job_load(const char *job, char *err, size_t errlen)
{
    char *dir = job_dir(job, err, errlen);
    if (!dir)
        return NULL;
    char *path = xasprintf("%s/job", dir);
    FILE *f = fopen(path, "r");
    struct slurm_job *j = xcalloc(1, sizeof *j);
    j->dir = dir;
    j->kind = SLURM_SWEEP;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned lineno = 0;
    int rc = f ? 0 : -1;
    if (!f)
        snprintf(err, errlen, "%s: cannot read the job's manifest: %s", path, strerror(errno));
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[len - 1] == '\n')
            line[len - 1] = '\0';
        if (lineno == 1 ? strcmp(line, MANIFEST_MAGIC) != 0 : take_line(j, line) != 0) {
            snprintf(err, errlen, "%s:%u: expected %s, got '%.80s'", path, lineno,
                     lineno == 1 ? "'" MANIFEST_MAGIC "'" : "a manifest line (KEY VALUE)", line);
            rc = -1;
        }
    }
    if (rc == 0 && (lineno == 0 || !j->cwd || j->argc < 1 || j->shards < 1 ||
                    j->shards > SLURM_MAX_SHARDS || (j->kind == SLURM_REPRODUCE && !j->journal))) {
        snprintf(err, errlen, "%s: the manifest is incomplete (no kind, shards, cwd or command)",
                 path);
        rc = -1;
    }
    /* A copy (or a move) of a job directory is still that job: its manifest names the other
     * directory's journal and Slurm jobs, and its task script the other directory, so it
     * would run, follow and merge the other's shards. */
    if (rc == 0 && j->made_in && !same_dir(j->made_in, dir)) {
        snprintf(err, errlen,
                 "%s: this job was made in %s, whose journal, shards and Slurm jobs it names: a "
                 "copy or a move of a job directory would run and merge that job's shards; name "
                 "%s, move it back, or submit the command again for a job of its own",
                 path, j->made_in, j->made_in);
        rc = -1;
    }
    free(line);
    if (f)
        fclose(f);
    free(path);
    if (rc != 0) {
        slurm_job_delete(j);
        return NULL;
    }
    return j;
}

/* ---- submitting ---- */

/* "1-4" when shards are 1..n in order, else "2,5,7". Heap. */
static char *array_spec(const unsigned *shards, size_t n)
{
    bool run = true;
    for (size_t i = 0; i < n; i++)
        run = run && shards[i] == i + 1;
    if (run && n > 1)
        return xasprintf("1-%zu", n);
    char *spec = xstrdup("");
    for (size_t i = 0; i < n; i++) {
        char *next = xasprintf("%s%s%u", spec, i ? "," : "", shards[i]);
        free(spec);
        spec = next;
    }
    return spec;
}

/* Remember id -> the job directory in slurm_jobs_root()/ids, for `corun slurm status ID`. */
static void index_job(const struct slurm_job *j, const char *id)
{
    char *root = slurm_jobs_root(), err[256];
    char *ids = root ? xasprintf("%s/ids", root) : NULL;
    char *link = ids ? xasprintf("%s/%s", ids, id) : NULL;
    if (link && make_dirs(ids, err, sizeof err) == 0) {
        unlink(link);
        if (symlink(j->dir, link) != 0)
            fprintf(stderr, "corun: cannot note job %s in %s (%s); name it by its directory\n", id,
                    ids, strerror(errno));
    }
    free(link);
    free(ids);
    free(root);
}

int slurm_job_submit(struct slurm_job *j, const unsigned *shards, size_t n, char *id, size_t len,
                     char *err, size_t errlen)
{
    char *spec = array_spec(shards, n);
    char *array = xasprintf("--array=%s", spec), *chdir = xasprintf("--chdir=%s", j->cwd);
    char *output = xasprintf("--output=%s/shard-%%a.out", j->dir);
    char *name = xasprintf("--job-name=corun-%s", kind_names[j->kind]);
    char *script = xasprintf("%s/task.sh", j->dir);
    char **argv = xcalloc((size_t)j->nsbatch + 9, sizeof *argv);
    int argc = 0;
    argv[argc++] = "sbatch";
    argv[argc++] = "--parsable";
    argv[argc++] = array;
    argv[argc++] = name;
    argv[argc++] = chdir;
    argv[argc++] = output;
    for (int i = 0; i < j->nsbatch; i++)
        argv[argc++] = j->sbatch[i];
    argv[argc++] = script;
    char *out = NULL;
    int status = 0;
    int rc = spawn_capture(argv, false, &out, &status, err, errlen);
    /* --parsable prints "ID" or "ID;CLUSTER". */
    size_t idlen = out ? strspn(out, "0123456789") : 0;
    if (rc == 0 && (status != 0 || idlen == 0 || idlen >= len)) {
        snprintf(err, errlen, "sbatch failed (exit status %d%s%.100s); nothing was submitted",
                 status, out && *out ? ", it printed: " : ", its message is above", out ? out : "");
        rc = -1;
    }
    if (rc == 0) {
        snprintf(id, len, "%.*s", (int)idlen, out);
        int k = j->njobs;
        push(&j->jobs, &k, id);
        push(&j->job_shards, &j->njobs, spec);
        index_job(j, id);
        rc = write_manifest(j, err, errlen);
    }
    free(out);
    free(argv);
    free(script);
    free(name);
    free(output);
    free(chdir);
    free(array);
    free(spec);
    return rc;
}

/* ---- the task side ---- */

static int write_state(const struct slurm_job *j, unsigned k, const char *finished, char *err,
                       size_t errlen)
{
    char host[256] = "?", started[32];
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *job = getenv("SLURM_ARRAY_JOB_ID");
    char *text =
        xasprintf("simulator %u\nhost %s\ntask %s_%u\n%s %s\n", CORUN_SIM_ID, host, job ? job : "?",
                  k, finished ? "finished" : "started", finished ? finished : started);
    char *path = slurm_shard_path(j, k, "state");
    int rc = write_file(path, text, 0644, err, errlen);
    free(path);
    free(text);
    return rc;
}

int slurm_task_begin(const struct slurm_job *j, unsigned k, char *err, size_t errlen)
{
    return write_state(j, k, NULL, err, errlen);
}

int slurm_task_end(const struct slurm_job *j, unsigned k, int rc, char *err, size_t errlen)
{
    char status[16];
    snprintf(status, sizeof status, "%d", rc);
    return write_state(j, k, status, err, errlen);
}
