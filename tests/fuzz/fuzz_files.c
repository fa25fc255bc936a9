/* fuzz_files — libFuzzer harness for the files corun reads besides scenarios and run files: a
 * GPU preset, a kernel profile, an accelerator application profile, a trained model, a lesson,
 * a suite, a DRAM request trace, a reproduce journal, a Slurm job's manifest, and a scenario to
 * run (what `check` accepts, `run` accepts). The input's
 * first byte picks the reader (its value modulo the number of readers), the rest is the file.
 * Presets and profiles are read from a scratch data directory made once, whose other files are
 * links to the real ones; the others are written to a scratch file and read as their command
 * reads them. What loads is used as `run` would use it: a preset or a kernel that loads is
 * simulated for a few cycles (lbm on the preset, the kernel on hbm80), a trace's first requests
 * go through the DRAM model, a scenario runs one short epoch. Whatever the bytes, each reader must
 * answer (loaded, or a message) without a crash, a hang, a leak or undefined behaviour. Seeds:
 * tests/fuzz/corpus/files; run by tests/fuzz.sh. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/accel_scenario.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/dramtrace.h"
#include "corun/gpu.h"
#include "corun/kernel.h"
#include "corun/lesson.h"
#include "corun/modelfile.h"
#include "corun/preset.h"
#include "corun/reproduce_journal.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/slurm.h"
#include "corun/solo.h"
#include "corun/suite.h"
#include "corun/trace.h"
#include "corun/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum reader { GPU, KERNEL, APP, MODEL, LESSON, SUITE, TRACE, JOURNAL, MANIFEST, RUN, READERS };

#define RUN_CYCLES   2000 /* simulated of what loads, as `run` would simulate it */
#define RUN_REQUESTS 64   /* of a trace, through the DRAM model */

static char *real; /* the real data directory */
static struct gpu_config hbm80;
static struct kernel_profile lbm;
static char *scratch; /* the scratch one: data/{gpus,kernels,apps}, a job directory, files */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_scratch(void)
{
    nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* scratch/data/SUB holding a link to each of the real directory's files. */
static void mirror(const char *sub)
{
    char *dir = xasprintf("%s/data/%s", scratch, sub);
    mkdir(dir, 0700);
    struct name_list names = {0};
    char *from = xasprintf("%s/data/%s", real, sub);
    preset_cfg_names(from, &names);
    for (size_t i = 0; i < names.count; i++) {
        char *target = xasprintf("%s/%s.cfg", from, names.names[i]);
        char *link = xasprintf("%s/%s.cfg", dir, names.names[i]);
        if (symlink(target, link) != 0)
            abort();
        free(target);
        free(link);
    }
    name_list_done(&names);
    free(from);
    free(dir);
}

static void setup(void)
{
    real = datadir_locate();
    char tmpl[] = "/tmp/corun-fuzz-XXXXXX";
    if (!real || !mkdtemp(tmpl))
        abort();
    scratch = xstrdup(tmpl);
    atexit(remove_scratch);
    char *d = xasprintf("%s/data", scratch);
    mkdir(d, 0700);
    free(d);
    mirror("gpus");
    mirror("kernels");
    mirror("apps");
    d = xasprintf("%s/job", scratch);
    mkdir(d, 0700);
    free(d);
    struct diag diags;
    diag_init(&diags);
    if (preset_gpu_load(real, "hbm80", &hbm80, &diags) ||
        preset_kernel_load(real, "lbm", &lbm, &diags))
        abort();
    diag_done(&diags);
}

/* What `check` accepts, `run` accepts: a short simulation of it. */
static void simulate(const struct gpu_config *cfg, const struct kernel_profile *p, unsigned sms)
{
    struct solo_result r;
    char err[256];
    solo_characterize(cfg, p, sms, RUN_CYCLES, 1, NULL, NULL, &r, err, sizeof err);
}

/* Writes the bytes to scratch/REL (truncating) and returns that path (heap). */
static char *put(const char *rel, const uint8_t *data, size_t size)
{
    char *path = xasprintf("%s/%s", scratch, rel);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    return path;
}

static void read_gpu(const uint8_t *data, size_t size, struct diag *d)
{
    free(put("data/gpus/fuzz.cfg", data, size));
    struct gpu_config cfg;
    if (preset_gpu_load(scratch, "fuzz", &cfg, d) == 0)
        simulate(&cfg, &lbm, 0);
}

/* As a scenario uses a kernel: loaded, then checked against a GPU. */
static void read_kernel(const uint8_t *data, size_t size, struct diag *d)
{
    free(put("data/kernels/fuzz.cfg", data, size));
    struct kernel_profile p;
    if (preset_kernel_load(scratch, "fuzz", &p, d) == 0) {
        char err[256];
        if (gpu_profile_check(&hbm80, &p, err, sizeof err) == 0)
            simulate(&hbm80, &p, 8);
        kernel_profile_done(&p);
    }
}

static void read_app(const uint8_t *data, size_t size, struct diag *d)
{
    free(put("data/apps/fuzz.cfg", data, size));
    struct accel_trace t;
    memset(&t, 0, sizeof t);
    accel_trace_load(scratch, "fuzz", &t, d);
    accel_trace_done(&t);
}

static void read_model(const uint8_t *data, size_t size, struct diag *d)
{
    char *path = put("model.cfg", data, size);
    const char *models[] = {"hsm", "themis"};
    for (size_t i = 0; i < 2; i++) {
        struct modelfile m;
        memset(&m, 0, sizeof m);
        modelfile_load(path, models[i], "hbm80", &m, d);
        modelfile_done(&m);
    }
    free(path);
}

static void read_lesson(const uint8_t *data, size_t size, struct diag *d)
{
    char *path = put("lesson.cfg", data, size);
    struct lesson l;
    memset(&l, 0, sizeof l);
    lesson_load(path, real, &l, d);
    lesson_done(&l);
    free(path);
}

static void read_suite(const uint8_t *data, size_t size, struct diag *d)
{
    char *path = put("suite.cfg", data, size);
    struct suite s;
    memset(&s, 0, sizeof s);
    suite_load(path, real, &s, d);
    suite_done(&s);
    free(path);
}

static void read_trace(const uint8_t *data, size_t size)
{
    struct trace t;
    char err[256];
    if (trace_parse("fuzz.trace", (const char *)data, size, &t, err, sizeof err) == 0) {
        struct dramtrace_result r;
        size_t n = t.count < RUN_REQUESTS ? t.count : RUN_REQUESTS;
        dramtrace_run(&hbm80.dram, 0, t.addrs, t.writes, n, NULL, NULL, &r, err, sizeof err);
        trace_free(&t);
    }
}

/* As --resume opens a journal, then everything it holds is read back. */
static void read_journal(const uint8_t *data, size_t size)
{
    char *path = put("fuzz.journal", data, size);
    char err[512];
    size_t sizes[] = {8, 312};
    for (size_t i = 0; i < 2; i++) {
        struct repro_journal *j = repro_journal_open(path, "fuzz run", sizes[i], err, sizeof err);
        size_t sum = 0;
        for (size_t r = 0; j && r < repro_journal_count(j); r++) {
            unsigned part;
            size_t index;
            const unsigned char *res = repro_journal_at(j, r, &part, &index);
            sum += res[0] + res[sizes[i] - 1] + part + index;
        }
        repro_journal_close(j);
        if (sum == 1) /* keeps the reads */
            fputc('\0', stderr);
        if (j) /* opening cut a torn tail off: put the input back for the other size */
            free(put("fuzz.journal", data, size));
    }
    /* As `reproduce merge` reads another journal (refused: not this build's, but read). */
    char *into = xasprintf("%s/into.journal", scratch);
    unlink(into);
    struct repro_journal_merged m;
    repro_journal_merge(into, path, real, &m, err, sizeof err);
    unlink(into);
    free(into);
    free(path);
}

static void read_manifest(const uint8_t *data, size_t size)
{
    free(put("job/job", data, size));
    char *dir = xasprintf("%s/job", scratch);
    char err[512];
    slurm_job_delete(slurm_job_load(dir, err, sizeof err));
    free(dir);
}

/* One short epoch of sc: its predictor and allocator, every kernel's private-mode reference. */
static void run_epoch(struct scenario *sc)
{
    char err[256];
    if (sc->epoch_cycles > RUN_CYCLES)
        sc->epoch_cycles = RUN_CYCLES;
    struct session *s = session_new(sc, err, sizeof err);
    if (s)
        session_step_epoch(s, NULL, NULL);
    session_delete(s);
}

/* A scenario that loads (fuzz_scenario fuzzes the loader itself) is run; a first line
 * KEY=VALUE is applied as --set first, as there. */
static void run_scenario(const uint8_t *data, size_t size, struct diag *d)
{
    char *text = xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct scenario sc;
    if (scenario_load_text(&sc, "fuzz.cfg", text, real, d) == 0) {
        size_t line = strcspn(text, "\n");
        bool set = memchr(text, '=', line) != NULL;
        text[line] = '\0';
        if (!set || scenario_set(&sc, text, d) == 0)
            run_epoch(&sc);
    }
    scenario_done(&sc);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!scratch)
        setup();
    if (size == 0)
        return 0;
    struct diag d;
    diag_init(&d);
    enum reader r = (enum reader)(data[0] % READERS);
    data++, size--;
    switch (r) {
    case GPU: read_gpu(data, size, &d); break;
    case KERNEL: read_kernel(data, size, &d); break;
    case APP: read_app(data, size, &d); break;
    case MODEL: read_model(data, size, &d); break;
    case LESSON: read_lesson(data, size, &d); break;
    case SUITE: read_suite(data, size, &d); break;
    case TRACE: read_trace(data, size); break;
    case JOURNAL: read_journal(data, size); break;
    case MANIFEST: read_manifest(data, size); break;
    case RUN: run_scenario(data, size, &d); break;
    case READERS: break;
    }
    diag_done(&d);
    return 0;
}
