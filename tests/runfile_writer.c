/* runfile_writer — a test driver for run files, with synthetic epochs (no simulation):
 *   runfile_writer write PATH [EPOCHS [DELAY_US [ADD_AT]]]
 *       record EPOCHS epochs (0: until killed), printing "epoch N done" after each; with
 *       ADD_AT > 0, add a fourth kernel before epoch ADD_AT (printing "kernel added"), and
 *       take kernel 1 out of the mix (in_mix 0) from epoch ADD_AT + 10 on
 *   runfile_writer check PATH [ADD_AT]
 *       read every epoch and event back, compare with what write records (with the same
 *       ADD_AT), print the counts
 *   runfile_writer crash-states PATH EPOCHS ADD_AT
 *       record EPOCHS epochs as write does, keeping every write the recorder makes; then
 *       rebuild at PATH each file a kill could leave (after any write, or inside a write at a
 *       page boundary, where Linux can cut one) and check that it opens with every epoch
 *       committed before it, as check does
 *   runfile_writer layout
 *       print the layout (docs/runfile.md)
 *   runfile_writer accel-layout
 *       print the accelerator run file's layout (docs/runfile.md)
 * tests/e2e/runfile_crash.sh kills `write` at random moments and runs `check`, and runs
 * `crash-states`. */
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "corun/accel_runfile.h"
#include "corun/runfile.h"
#include "runfile_internal.h" /* the guard driver's hook */

#define KERNELS      3
#define SMS          80
#define EPOCH_CYCLES 100000

/* Every field of table t in base gets a value made from seed and the field's position. */
static void fill(const struct runfile_table *t, void *base, uint64_t seed)
{
    for (size_t j = 0; j < t->count; j++) {
        void *p = (char *)base + t->fields[j].offset;
        switch (t->fields[j].type) {
        case RUNFILE_U64: *(uint64_t *)p = seed * 1000003u + j * 7919u; break;
        case RUNFILE_UINT: *(unsigned *)p = (unsigned)((seed + j) % 1000u); break;
        case RUNFILE_DOUBLE: *(double *)p = (double)(seed + j) * 0.1 + 1.0 / 3.0; break;
        case RUNFILE_FLAG: *(unsigned *)p = 1; break;
        default: break;
        }
    }
}

/* The kernels of the run when epoch i is recorded (add_at 0: none is added). */
static unsigned kernels_at(uint64_t i, uint64_t add_at)
{
    return KERNELS + (add_at > 0 && i >= add_at);
}

/* Epoch i as recorded, or as read back from a file of nkernels kernels (0: as recorded): a
 * kernel added later reads as absent. */
static void synth_epoch(uint64_t i, uint64_t add_at, unsigned nkernels, struct runfile_epoch *e)
{
    memset(e, 0, sizeof(*e));
    fill(&runfile_system_table, e, i);
    e->start_cycle = i * EPOCH_CYCLES;
    e->cycles = EPOCH_CYCLES;
    e->sys.cycles = EPOCH_CYCLES;
    unsigned now = kernels_at(i, add_at);
    e->nkernels = nkernels ? nkernels : now;
    for (unsigned k = 0; k < e->nkernels; k++) {
        if (k >= now) {
            for (size_t j = 0; j < runfile_per_kernel_table.count; j++)
                if (runfile_per_kernel_table.fields[j].type == RUNFILE_DOUBLE)
                    *(double *)((char *)&e->k[k] + runfile_per_kernel_table.fields[j].offset) = NAN;
            continue;
        }
        fill(&runfile_per_kernel_table, &e->k[k], i * 10 + k);
        if (k == 1)
            e->k[k].np_pred = NAN;
        if (k == 1 && add_at > 0 && i >= add_at + 10)
            e->k[k].in_mix = 0; /* removed: the values are whatever the recorder gives */
    }
    e->nsms = SMS;
    for (unsigned s = 0; s < SMS; s++)
        e->owner[s] = (int)((s + i) % (now + 2)) - 2;
}

static bool same_values(const struct runfile_table *t, const void *a, const void *b)
{
    for (size_t j = 0; j < t->count; j++) {
        const char *pa = (const char *)a + t->fields[j].offset;
        const char *pb = (const char *)b + t->fields[j].offset;
        if (t->fields[j].type == RUNFILE_DOUBLE) {
            double x = *(const double *)pa, y = *(const double *)pb;
            if (!(x == y || (isnan(x) && isnan(y))))
                return false;
        } else if (t->fields[j].type == RUNFILE_U64) {
            if (*(const uint64_t *)pa != *(const uint64_t *)pb)
                return false;
        } else if (*(const unsigned *)pa != *(const unsigned *)pb) {
            return false;
        }
    }
    return true;
}

static bool same_epoch(const struct runfile_epoch *a, const struct runfile_epoch *b)
{
    if (!same_values(&runfile_system_table, a, b) || a->sys.cycles != b->sys.cycles ||
        a->nkernels != b->nkernels || a->nsms != b->nsms)
        return false;
    for (unsigned k = 0; k < a->nkernels; k++)
        if (!same_values(&runfile_per_kernel_table, &a->k[k], &b->k[k]))
            return false;
    return memcmp(a->owner, b->owner, a->nsms * sizeof(a->owner[0])) == 0;
}

static void event_text(uint64_t i, char *buf, size_t len)
{
    snprintf(buf, len, "fair: fairness 0.61 < 0.90, moved %u SMs LBM\u2192BINO (epoch %llu)",
             (unsigned)(i % 7 + 1), (unsigned long long)i);
}

/* The recorder's writes, in order, while crash-states records (buf NULL: a truncation). */
struct logged {
    uint64_t addr;
    size_t size;
    unsigned char *buf;
};
static struct logged *wlog;
static size_t nlog, caplog;

static void log_write(uint64_t addr, size_t size, const void *buf)
{
    if (nlog == caplog) {
        caplog = caplog ? 2 * caplog : 4096;
        wlog = realloc(wlog, caplog * sizeof(*wlog));
        if (!wlog)
            abort();
    }
    struct logged *w = &wlog[nlog++];
    *w = (struct logged){addr, size, NULL};
    if (buf) {
        w->buf = malloc(size ? size : 1);
        if (!w->buf)
            abort();
        memcpy(w->buf, buf, size);
    }
}

/* Records as `write` does; with done_at, the number of writes logged when the file appeared
 * (done_at[0]) and when epoch i was reported done (done_at[i + 1]). */
static int write_run(const char *path, uint64_t epochs, long delay_us, uint64_t add_at,
                     size_t *done_at)
{
    struct runfile_header h = {0};
    h.scenario_text = "name = \"crash\";\n";
    h.scenario_path = "scenarios/crash.cfg";
    h.seed = 42;
    h.gpu_preset = "hbm80";
    h.sms = SMS;
    h.epoch_cycles = EPOCH_CYCLES;
    h.nkernels = KERNELS;
    const char *names[KERNELS] = {"LBM", "BINO", "SAD"};
    for (unsigned k = 0; k < KERNELS; k++)
        h.kernels[k] = (struct runfile_kernel){(char *)names[k], k == 0, 0.8, 0};
    char err[512];
    struct runfile *rf = runfile_create(path, &h, err, sizeof(err));
    if (!rf) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (done_at)
        done_at[0] = nlog;
    else
        printf("created\n");
    fflush(stdout);
    struct runfile_epoch *e = malloc(sizeof(*e));
    for (uint64_t i = 0; epochs == 0 || i < epochs; i++) {
        if (add_at > 0 && i == add_at) {
            struct runfile_kernel added = {"HS", 0, 0.5, 0};
            if (runfile_add_kernel(rf, &added, err, sizeof(err)) < 0)
                break;
            if (!done_at)
                printf("kernel added\n");
        }
        synth_epoch(i, add_at, 0, e);
        if (i % 4 == 3) {
            char text[RUNFILE_TEXT_MAX];
            event_text(i, text, sizeof(text));
            if (runfile_append_event(rf, i, i * EPOCH_CYCLES, "repartition", text, err,
                                     sizeof(err)) < 0)
                break;
        }
        if (runfile_append_epoch(rf, e, err, sizeof(err)) < 0)
            break;
        if (done_at)
            done_at[i + 1] = nlog;
        else
            printf("epoch %llu done\n", (unsigned long long)i);
        fflush(stdout);
        if (delay_us > 0) {
            struct timespec ts = {delay_us / 1000000, delay_us % 1000000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    free(e);
    /* After a failed append, closing reports the same error. */
    if (runfile_close(rf, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

/* The kernels of rf are what write_run gave it by epoch n: 3, then 4 from add_at on (either
 * when the recorder died between epoch add_at - 1 and add_at). */
static bool right_kernels(const struct runfile *rf, uint64_t add_at)
{
    const struct runfile_header *h = runfile_header(rf);
    uint64_t n = runfile_epoch_count(rf);
    const char *names[] = {"LBM", "BINO", "SAD", "HS"};
    if (h->nkernels_start != KERNELS || h->nkernels < KERNELS || h->nkernels > KERNELS + 1 ||
        (h->nkernels > KERNELS && (add_at == 0 || n < add_at)) ||
        (h->nkernels == KERNELS && add_at > 0 && n > add_at))
        return false;
    for (unsigned k = 0; k < h->nkernels; k++)
        if (strcmp(h->kernels[k].name, names[k]) != 0)
            return false;
    return true;
}

/* Reads every epoch and event of path back and compares them with what write_run recorded:
 * 0, with *epochs its epoch count and the counts line in line, or 1 (said on stderr). */
static int check_file(const char *path, uint64_t add_at, uint64_t *epochs, char *line, size_t len)
{
    char err[512];
    struct runfile *rf = runfile_open(path, err, sizeof(err));
    if (!rf) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int rc = 0;
    unsigned nkernels = runfile_header(rf)->nkernels;
    if (!right_kernels(rf, add_at)) {
        fprintf(stderr, "%s: %u kernels (%u at the start) after %llu epochs\n", path, nkernels,
                runfile_header(rf)->nkernels_start, (unsigned long long)runfile_epoch_count(rf));
        rc = 1;
    }
    struct runfile_epoch *got = malloc(sizeof(*got)), *want = malloc(sizeof(*want));
    for (uint64_t i = 0; i < runfile_epoch_count(rf) && rc == 0; i++) {
        synth_epoch(i, add_at, nkernels, want);
        if (runfile_read_epoch(rf, i, got, err, sizeof(err)) < 0) {
            fprintf(stderr, "%s\n", err);
            rc = 1;
        } else if (!same_epoch(got, want)) {
            fprintf(stderr, "%s: epoch %llu differs from what was written\n", path,
                    (unsigned long long)i);
            rc = 1;
        }
    }
    for (uint64_t i = 0; i < runfile_event_count(rf) && rc == 0; i++) {
        struct runfile_event ev;
        char text[RUNFILE_TEXT_MAX];
        uint64_t epoch = i * 4 + 3;
        event_text(epoch, text, sizeof(text));
        if (runfile_read_event(rf, i, &ev, err, sizeof(err)) < 0) {
            fprintf(stderr, "%s\n", err);
            rc = 1;
        } else if (ev.epoch != epoch || ev.cycle != epoch * EPOCH_CYCLES ||
                   strcmp(ev.kind, "repartition") != 0 || strcmp(ev.text, text) != 0) {
            fprintf(stderr, "%s: event %llu differs from what was written\n", path,
                    (unsigned long long)i);
            rc = 1;
        }
    }
    *epochs = runfile_epoch_count(rf);
    snprintf(line, len, "epochs %llu events %llu kernels %u",
             (unsigned long long)runfile_epoch_count(rf),
             (unsigned long long)runfile_event_count(rf), nkernels);
    free(got);
    free(want);
    runfile_close(rf, err, sizeof(err));
    return rc;
}

static int check_run(const char *path, uint64_t add_at)
{
    uint64_t epochs;
    char line[128];
    int rc = check_file(path, add_at, &epochs, line, sizeof line);
    if (rc == 0)
        printf("%s\n", line);
    return rc;
}

/* The file as the first `applied` logged writes left it (states are visited in order). */
static unsigned char *image;
static size_t image_size, image_cap, applied;

static void image_reserve(size_t size)
{
    if (size <= image_cap)
        return;
    image_cap = size > 2 * image_cap ? size : 2 * image_cap;
    image = realloc(image, image_cap);
    if (!image)
        abort();
}

/* Writes to path the file as a kill would leave it after the first n logged writes, and,
 * with cut, the first `cut` bytes of write n. */
static int write_state(const char *path, size_t n, size_t cut)
{
    for (; applied < n; applied++) {
        const struct logged *w = &wlog[applied];
        size_t end = w->buf ? (size_t)w->addr + w->size : w->size;
        image_reserve(end);
        if (end > image_size)
            memset(image + image_size, 0, end - image_size);
        if (w->buf)
            memcpy(image + w->addr, w->buf, w->size);
        image_size = w->buf && end < image_size ? image_size : end;
    }
    /* A new file each time rather than the same one truncated: ext4 starts writing a file
     * that was truncated and written again back to disk when it is closed (auto_da_alloc). */
    remove(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return -1;
    int rc = write(fd, image, image_size) == (ssize_t)image_size ? 0 : -1;
    if (rc == 0 && cut && pwrite(fd, wlog[n].buf, cut, (off_t)wlog[n].addr) != (ssize_t)cut)
        rc = -1;
    return close(fd) < 0 ? -1 : rc;
}

/* One file a kill could leave: after write n, or cut inside it (cut bytes written); the
 * epochs reported done by then must all be there. Returns 0, or 1 having said why. */
static int check_state(const char *path, uint64_t add_at, const size_t *done_at, uint64_t epochs,
                       size_t n, size_t cut)
{
    uint64_t committed = 0;
    while (committed < epochs && done_at[committed + 1] <= n)
        committed++;
    if (write_state(path, n, cut) < 0) {
        perror(path);
        return 1;
    }
    uint64_t held = 0;
    char line[128];
    int rc = check_file(path, add_at, &held, line, sizeof line);
    if (rc == 0 && held < committed) {
        fprintf(stderr, "%s: %llu epochs, %llu of them committed\n", path, (unsigned long long)held,
                (unsigned long long)committed);
        rc = 1;
    }
    if (rc)
        fprintf(stderr, "  (the file after %zu of %zu writes%s, %llu epochs committed)\n", n, nlog,
                cut ? ", the next cut at a page boundary" : "", (unsigned long long)committed);
    return rc;
}

static int crash_states(const char *path, uint64_t epochs, uint64_t add_at)
{
    size_t *done_at = calloc(epochs + 1, sizeof(*done_at));
    char *rec = malloc(strlen(path) + 16);
    int rc = !done_at || !rec;
    if (rc == 0) {
        sprintf(rec, "%s.recorded", path);
        remove(rec);
        rf_guard_hook = log_write;
        rc = write_run(rec, epochs, 0, add_at, done_at);
        rf_guard_hook = NULL;
        remove(rec);
    }
    if (rc) {
        free(done_at);
        free(rec);
        return 1;
    }
    /* Between writes: a sample of about 100 states once the file has its name. Inside one:
     * every page boundary of every write that crosses one. */
    size_t from = done_at[0], stride = (nlog - from) / 100 + 1, between = 0, inside = 0;
    unsigned failed = 0;
    for (size_t n = from; n <= nlog; n++) {
        if ((n - from) % stride == 0 || n == nlog) {
            between++;
            failed += (unsigned)check_state(path, add_at, done_at, epochs, n, 0);
        }
        if (n == nlog || !wlog[n].buf)
            continue;
        uint64_t a = wlog[n].addr, end = a + wlog[n].size;
        for (uint64_t b = (a / RF_PAGE_BYTES + 1) * RF_PAGE_BYTES; b < end; b += RF_PAGE_BYTES) {
            inside++;
            failed += (unsigned)check_state(path, add_at, done_at, epochs, n, (size_t)(b - a));
        }
    }
    printf("crash states: %zu writes for %llu epochs; %zu files after a write, %zu cut inside "
           "one at a page boundary; %u without every committed epoch\n",
           nlog - from, (unsigned long long)epochs, between, inside, failed);
    for (size_t i = 0; i < nlog; i++)
        free(wlog[i].buf);
    free(wlog);
    free(image);
    free(done_at);
    free(rec);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "layout") == 0) {
        runfile_print_layout(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "accel-layout") == 0) {
        accel_runfile_print_layout(stdout);
        return 0;
    }
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "check") == 0)
        return check_run(argv[2], argc > 3 ? strtoull(argv[3], NULL, 10) : 0);
    if (argc >= 3 && argc <= 6 && strcmp(argv[1], "write") == 0)
        return write_run(argv[2], argc > 3 ? strtoull(argv[3], NULL, 10) : 0,
                         argc > 4 ? strtol(argv[4], NULL, 10) : 0,
                         argc > 5 ? strtoull(argv[5], NULL, 10) : 0, NULL);
    if (argc == 5 && strcmp(argv[1], "crash-states") == 0 && strtoull(argv[3], NULL, 10) > 0)
        return crash_states(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10));
    fprintf(stderr, "usage: runfile_writer write PATH [EPOCHS [DELAY_US [ADD_AT]]] | check PATH "
                    "[ADD_AT] | crash-states PATH EPOCHS ADD_AT | layout | accel-layout\n");
    return 2;
}
