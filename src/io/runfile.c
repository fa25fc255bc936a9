/* runfile — the layout tables, the helpers shared by writing and reading, and closing. */
#include "corun/runfile.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/util.h"
#include "runfile_internal.h"

/* ---- tables ---- */

#define HDR(f, t, u, d)                                                                            \
    {                                                                                              \
#f, t, u, offsetof(struct runfile_header, f), d                                            \
    }
static const struct runfile_field header_fields[] = {
    HDR(schema_version, RUNFILE_UINT, NULL,
        "major schema version; a reader refuses a file whose version is newer than its own"),
    HDR(schema_minor, RUNFILE_UINT, NULL, "minor schema version: additions older readers ignore"),
    HDR(corun_version, RUNFILE_STRING, NULL, "the corun version that recorded the run"),
    HDR(scenario_text, RUNFILE_STRING, NULL, "the scenario file's whole text"),
    HDR(scenario_path, RUNFILE_STRING, NULL, "the scenario file (absolute when it named one)"),
    HDR(seed, RUNFILE_U64, NULL, "random seed of the simulation"),
    HDR(gpu_preset, RUNFILE_STRING, NULL, "GPU preset name"),
    HDR(sms, RUNFILE_UINT, "SMs", "streaming multiprocessors of the GPU"),
    HDR(epoch_cycles, RUNFILE_U64, "cycles", "core cycles per epoch"),
    /* The attribute keeps its schema-1 name; SWMR cannot rewrite an attribute, so it counts
     * the kernels at the start, and /kernel_count every kernel. */
    {"nkernels", RUNFILE_UINT, "kernels", offsetof(struct runfile_header, nkernels_start),
     "kernels when recording began (an attribute cannot change under SWMR: /kernel_count "
     "counts the added ones too)"},
    HDR(created, RUNFILE_STRING, NULL, "when recording began, ISO 8601 UTC"),
};
const struct runfile_table runfile_header_table = {"/", "attribute", "struct runfile_header",
                                                   header_fields, CORUN_ARRAY_LEN(header_fields)};

#define KER(f, t, u, d)                                                                            \
    {                                                                                              \
#f, t, u, offsetof(struct runfile_kernel, f), d                                            \
    }
static const struct runfile_field kernel_fields[] = {
    KER(name, RUNFILE_NAME, NULL, "kernel name, as in the scenario"),
    KER(priority, RUNFILE_PRIORITY, NULL, "high: the QoS allocator protects it"),
    KER(qos_target, RUNFILE_DOUBLE, "1", "normalized progress to keep when it has high priority"),
    KER(weight, RUNFILE_DOUBLE, "1",
        "weighted-fairness share; 0 in every kernel means equal shares"),
};
const struct runfile_table runfile_kernel_table = {"/kernels", "[kernels]", "struct runfile_kernel",
                                                   kernel_fields, CORUN_ARRAY_LEN(kernel_fields)};

#define CNT(f, t, u, d)                                                                            \
    {                                                                                              \
#f, t, u, offsetof(struct runfile_kernel_epoch, c.f), d                                    \
    }
static const struct runfile_field per_kernel_fields[] = {
    CNT(cycles, RUNFILE_U64, "cycles", "core cycles in the epoch"),
    CNT(instructions, RUNFILE_U64, "warp instructions", "warp instructions issued"),
    CNT(sms, RUNFILE_DOUBLE, "SMs", "time-weighted SM count: SM-cycles / cycles"),
    CNT(active_sms, RUNFILE_UINT, "SMs", "SMs holding or running its TBs at the epoch's end"),
    CNT(owned_sms, RUNFILE_UINT, "SMs", "SMs the partition gives it at the epoch's end"),
    CNT(ipc, RUNFILE_DOUBLE, "warp instructions/cycle", "instructions / cycles"),
    CNT(l1d_accesses, RUNFILE_U64, "requests", "L1 data-cache load line requests"),
    CNT(l1d_misses, RUNFILE_U64, "requests", "L1 data-cache misses (stores bypass the L1)"),
    CNT(l1c_accesses, RUNFILE_U64, "requests", "constant-cache requests"),
    CNT(l1c_misses, RUNFILE_U64, "requests", "constant-cache misses"),
    CNT(l2_accesses, RUNFILE_U64, "requests", "LLC requests, reads and writes"),
    CNT(l2_misses, RUNFILE_U64, "requests", "LLC misses (a merged read miss is a miss)"),
    CNT(dram_reads, RUNFILE_U64, "requests", "DRAM read requests"),
    CNT(dram_writes, RUNFILE_U64, "requests", "DRAM write requests"),
    CNT(dram_requests, RUNFILE_U64, "requests", "DRAM requests"),
    CNT(row_hits, RUNFILE_U64, "accesses", "DRAM row-buffer hits"),
    CNT(row_accesses, RUNFILE_U64, "accesses", "DRAM row-buffer accesses"),
    CNT(activates, RUNFILE_U64, "activates", "DRAM row activations"),
    CNT(dram_bytes, RUNFILE_U64, "bytes", "bytes moved to and from DRAM"),
    CNT(rbh, RUNFILE_DOUBLE, "1", "row-buffer hit rate: row_hits / row_accesses (0 when none)"),
    CNT(bandwidth_gbs, RUNFILE_DOUBLE, "GB/s", "dram_bytes over the epoch's time"),
    CNT(bandwidth_util, RUNFILE_DOUBLE, "1", "bandwidth_gbs / the GPU's peak"),
    CNT(dram_queue_cycles, RUNFILE_U64, "memory cycles", "queueing time, summed over requests"),
    CNT(dram_interference_cycles, RUNFILE_U64, "memory cycles",
        "queueing time caused by other kernels, summed over requests"),
    CNT(tbs_finished, RUNFILE_U64, "TBs", "thread blocks finished"),
    CNT(tbs_saved, RUNFILE_U64, "TBs", "thread blocks saved by context switches"),
    CNT(tbs_restored, RUNFILE_U64, "TBs", "thread blocks restored by context switches"),
    CNT(launches, RUNFILE_U64, "grids", "grids completed since the run began"),
    CNT(instructions_total, RUNFILE_U64, "warp instructions", "issued since the run began"),
    CNT(first_launch_cycle, RUNFILE_U64, "cycles", "when the first grid completed (0: not yet)"),
    CNT(first_launch_instructions, RUNFILE_U64, "warp instructions",
        "instructions issued when the first grid completed"),
    CNT(energy_static_j, RUNFILE_DOUBLE, "J", "static energy of its SMs"),
    CNT(energy_dynamic_j, RUNFILE_DOUBLE, "J", "dynamic energy of its instructions"),
    CNT(energy_dram_j, RUNFILE_DOUBLE, "J", "DRAM energy of its activates and requests"),
    CNT(energy_j, RUNFILE_DOUBLE, "J", "its total energy"),
    {"np_true", RUNFILE_DOUBLE, "1", offsetof(struct runfile_kernel_epoch, np_true),
     "true normalized progress: private cycles for the epoch's instructions / cycles"},
    {"np_pred", RUNFILE_DOUBLE, "1", offsetof(struct runfile_kernel_epoch, np_pred),
     "the predictor's normalized progress (NaN: no predictor)"},
    /* After the schema-1 fields, so that those keep their places in kernels.csv. */
    {"in_mix", RUNFILE_FLAG, NULL, offsetof(struct runfile_kernel_epoch, in_mix),
     "1: in the mix during the epoch; 0: not added yet (its other fields read NaN or 0) or "
     "removed (in the epoch it leaves, sms may count the SM time its SMs took to be handed "
     "over, its thread blocks saved or drained; show and the workbench, listing the mix, leave "
     "that out of their columns)"},
    /* Schema 2.1: what the replay needs to show the Class column and the explain panel. */
    {"pred_class", RUNFILE_CLASS, NULL, offsetof(struct runfile_kernel_epoch, pred_class),
     "the predictor's class of the kernel: 0 none, 1 compute, 2 memory, 3 balanced (2.1 on)"},
    {"explain", RUNFILE_TEXT, NULL, offsetof(struct runfile_kernel_epoch, explain),
     "the predictor's explanation of its NP, lines separated by a line break (2.1 on)"},
};
const struct runfile_table runfile_per_kernel_table = {
    "/per_kernel", "[epochs x kernels]", "struct runfile_kernel_epoch", per_kernel_fields,
    CORUN_ARRAY_LEN(per_kernel_fields)};

#define SYS(f, m, t, u, d)                                                                         \
    {                                                                                              \
#f, t, u, offsetof(struct runfile_epoch, m), d                                             \
    }
static const struct runfile_field system_fields[] = {
    SYS(start_cycle, start_cycle, RUNFILE_U64, "cycles", "core cycle at which the epoch began"),
    SYS(cycles, cycles, RUNFILE_U64, "cycles", "core cycles in the epoch"),
    SYS(idle_sm_cycles, sys.idle_sm_cycles, RUNFILE_U64, "SM-cycles", "powered SMs left unused"),
    SYS(gated_sm_cycles, sys.gated_sm_cycles, RUNFILE_U64, "SM-cycles", "power-gated SMs"),
    SYS(energy_j, sys.energy_j, RUNFILE_DOUBLE, "J",
        "every kernel's energy plus the static power of idle SMs"),
    SYS(stp, stp, RUNFILE_DOUBLE, "1", "system throughput: sum of np_true (NaN: undefined)"),
    SYS(antt, antt, RUNFILE_DOUBLE, "1", "average normalized turnaround time: mean 1/np_true"),
    SYS(fairness, fairness, RUNFILE_DOUBLE, "1", "min np_true / max np_true"),
};
const struct runfile_table runfile_system_table = {"/system", "[epochs]", "struct runfile_epoch",
                                                   system_fields, CORUN_ARRAY_LEN(system_fields)};

const char *const rf_event_names[RF_EV_COUNT] = {"epoch", "cycle", "kind", "text"};

size_t rf_in_mix_field(void)
{
    return runfile_per_kernel_table.count - 3;
}

size_t rf_first_minor1_field(void)
{
    return runfile_per_kernel_table.count - 2;
}

/* ---- layout listing ---- */

static const char *type_name(enum runfile_type t)
{
    switch (t) {
    case RUNFILE_U64: return "uint64";
    case RUNFILE_UINT: return "uint32";
    case RUNFILE_DOUBLE: return "float64";
    case RUNFILE_STRING: return "string";
    case RUNFILE_PRIORITY: return "enum {low, high}";
    case RUNFILE_NAME: return "string"; /* print_table adds the length */
    case RUNFILE_FLAG: return "uint8";
    case RUNFILE_CLASS: return "int8";
    case RUNFILE_TEXT: return "string"; /* print_table adds the length */
    }
    return "?";
}

static void print_table(FILE *out, const struct runfile_table *t)
{
    if (strcmp(t->where, "/") == 0)
        fprintf(out, "### Attributes of `/`, from `%s`\n\n", t->what);
    else
        fprintf(out, "### `%s/NAME`, shape %s, from `%s`\n\n", t->where, t->shape, t->what);
    fprintf(out, "| name | type | unit | description |\n|---|---|---|---|\n");
    for (size_t i = 0; i < t->count; i++) {
        const struct runfile_field *f = &t->fields[i];
        char type[32];
        if (f->type == RUNFILE_NAME)
            snprintf(type, sizeof(type), "string (%d bytes)", RUNFILE_NAME_MAX);
        else if (f->type == RUNFILE_TEXT)
            snprintf(type, sizeof(type), "string (%d bytes)", RUNFILE_EXPLAIN_MAX);
        else
            snprintf(type, sizeof(type), "%s", type_name(f->type));
        fprintf(out, "| `%s` | %s | %s | %s |\n", f->name, type, f->unit ? f->unit : "",
                f->description);
    }
    fputc('\n', out);
}

void runfile_print_layout(FILE *out)
{
    print_table(out, &runfile_header_table);
    print_table(out, &runfile_kernel_table);
    print_table(out, &runfile_per_kernel_table);
    print_table(out, &runfile_system_table);
    fprintf(out,
            "### Other datasets\n\n"
            "| name | type | shape | description |\n|---|---|---|---|\n"
            "| `/partition` | int16 | [epochs x sms] | the partition at the epoch's end (where "
            "`owned_sms` counts it), owner of each SM: kernel index, -1 idle, -2 power-gated |\n"
            "| `/events/epoch` | uint64 | [events] | epoch the event belongs to |\n"
            "| `/events/cycle` | uint64 | [events] | core cycle of the event |\n"
            "| `/events/kind` | string (%d bytes) | [events] | predictor, allocator, parameter, "
            "repartition, mix, note, ... |\n"
            "| `/events/text` | string (%d bytes) | [events] | what happened and why, UTF-8 |\n"
            "| `/epoch_count` | uint64 | scalar | complete epochs: rows beyond it are partial |\n"
            "| `/event_count` | uint64 | scalar | complete events |\n"
            "| `/kernel_count` | uint64 | scalar | complete kernels, the added ones included: "
            "entries of /kernels and columns of /per_kernel beyond it are partial |\n\n",
            RUNFILE_KIND_MAX, RUNFILE_TEXT_MAX);
}

/* ---- helpers ---- */

int rf_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int runfile_refuse_existing(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (S_ISDIR(st.st_mode))
        return rf_fail(err, errlen, "%s: is a directory (expected the name of a new run file)",
                       path);
    /* A dangling one was said to exist, which nothing did. */
    if (S_ISLNK(st.st_mode))
        return rf_fail(err, errlen,
                       "%s: is a symbolic link, not followed; a run file is never written "
                       "through a link or over one",
                       path);
    return rf_fail(err, errlen, "%s: already exists; a run file is never overwritten", path);
}

void rf_quiet(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

struct reason {
    char *buf;
    size_t len;
};

/* Called innermost first: keeps the first description. */
static herr_t reason_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    struct reason *r = data;
    if (n != 0 || !e->desc)
        return 0;
    /* The sec2 driver's message ends with the system's words; they are what a user needs. */
    const char *sys = strstr(e->desc, "error message = '");
    if (sys) {
        sys += strlen("error message = '");
        size_t n_sys = strcspn(sys, "'");
        snprintf(r->buf, r->len, "%.*s", (int)n_sys, sys);
    } else {
        snprintf(r->buf, r->len, "%s", e->desc);
    }
    return 0;
}

void rf_h5_reason(char *buf, size_t len)
{
    struct reason r = {buf, len};
    snprintf(buf, len, "unknown HDF5 error");
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, reason_walk, &r);
    H5Eclear2(H5E_DEFAULT);
}

uint64_t rf_storage_forged(hid_t ds, const char *path)
{
    hsize_t stored = H5Dget_storage_size(ds);
    struct stat st;
    if (stat(path, &st) != 0 || stored <= (uint64_t)st.st_size)
        return 0;
    return stored;
}

size_t rf_value_size(enum runfile_type t)
{
    switch (t) {
    case RUNFILE_U64: return sizeof(uint64_t);
    case RUNFILE_UINT: return sizeof(unsigned);
    case RUNFILE_DOUBLE: return sizeof(double);
    case RUNFILE_STRING: return sizeof(char *);
    case RUNFILE_PRIORITY: return sizeof(int);
    case RUNFILE_NAME: return sizeof(char *);
    case RUNFILE_FLAG: return sizeof(unsigned);
    case RUNFILE_CLASS: return sizeof(int);
    case RUNFILE_TEXT: return RUNFILE_EXPLAIN_MAX;
    }
    return 0;
}

size_t rf_row_size(enum runfile_type t)
{
    return t == RUNFILE_FLAG || t == RUNFILE_CLASS ? 1 : rf_value_size(t);
}

void rf_to_row(enum runfile_type t, const void *value, void *row)
{
    if (t == RUNFILE_FLAG)
        *(unsigned char *)row = (unsigned char)*(const unsigned *)value;
    else if (t == RUNFILE_CLASS)
        *(signed char *)row = (signed char)*(const int *)value;
    else if (t == RUNFILE_TEXT) {
        /* Terminated whatever the writer left at the end, and the rest zero: the bytes after
         * the NUL are compressed and written too. */
        size_t n = strnlen(value, RUNFILE_EXPLAIN_MAX - 1);
        memcpy(row, value, n);
        memset((char *)row + n, 0, RUNFILE_EXPLAIN_MAX - n);
    } else
        memcpy(row, value, rf_value_size(t));
}

void rf_from_row(enum runfile_type t, const void *row, void *value)
{
    if (t == RUNFILE_FLAG)
        *(unsigned *)value = *(const unsigned char *)row;
    else if (t == RUNFILE_CLASS)
        *(int *)value = *(const signed char *)row;
    else if (t == RUNFILE_TEXT)
        snprintf(value, RUNFILE_EXPLAIN_MAX, "%.*s", RUNFILE_EXPLAIN_MAX - 1, (const char *)row);
    else
        memcpy(value, row, rf_value_size(t));
}

int rf_transfer_row(struct runfile *rf, hid_t ds, uint64_t row, hsize_t width, hid_t mem_type,
                    void *buf, bool write)
{
    int rank = width ? 2 : 1;
    hsize_t start[2] = {row, 0}, count[2] = {1, width};
    hid_t fs = H5Dget_space(ds);
    hid_t ms = H5Screate_simple(rank, count, NULL);
    herr_t rc = fs < 0 || ms < 0 ? -1 : 0;
    if (rc >= 0)
        rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (rc >= 0)
        rc = write ? H5Dwrite(ds, mem_type, ms, fs, H5P_DEFAULT, buf)
                   : H5Dread(ds, mem_type, ms, fs, H5P_DEFAULT, buf);
    if (rc < 0)
        rf_h5_reason(rf->why, sizeof(rf->why));
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return rc < 0 ? -1 : 0;
}

bool rf_is_string(enum runfile_type t)
{
    return t == RUNFILE_STRING || t == RUNFILE_NAME;
}

static hid_t priority_type(hid_t base)
{
    /* H5Tenum_insert takes each value in the base type. */
    hid_t t = H5Tenum_create(base);
    if (H5Tget_size(base) == sizeof(signed char)) {
        signed char v[2] = {0, 1};
        H5Tenum_insert(t, "low", &v[0]);
        H5Tenum_insert(t, "high", &v[1]);
    } else {
        int v[2] = {0, 1};
        H5Tenum_insert(t, "low", &v[0]);
        H5Tenum_insert(t, "high", &v[1]);
    }
    return t;
}

static hid_t vl_string(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

hid_t rf_fixed_string(size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, size);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

hid_t rf_mem_type(enum runfile_type t)
{
    switch (t) {
    case RUNFILE_U64: return H5Tcopy(H5T_NATIVE_UINT64);
    case RUNFILE_UINT: return H5Tcopy(H5T_NATIVE_UINT);
    case RUNFILE_DOUBLE: return H5Tcopy(H5T_NATIVE_DOUBLE);
    case RUNFILE_STRING: return vl_string();
    case RUNFILE_PRIORITY: return priority_type(H5T_NATIVE_INT);
    case RUNFILE_NAME: return rf_fixed_string(RUNFILE_NAME_MAX);
    case RUNFILE_FLAG: return H5Tcopy(H5T_NATIVE_UINT8); /* see rf_to_row */
    case RUNFILE_CLASS: return H5Tcopy(H5T_NATIVE_SCHAR);
    case RUNFILE_TEXT: return rf_fixed_string(RUNFILE_EXPLAIN_MAX);
    }
    return H5I_INVALID_HID;
}

hid_t rf_file_type(enum runfile_type t)
{
    switch (t) {
    case RUNFILE_U64: return H5Tcopy(H5T_STD_U64LE);
    case RUNFILE_UINT: return H5Tcopy(H5T_STD_U32LE);
    case RUNFILE_DOUBLE: return H5Tcopy(H5T_IEEE_F64LE);
    case RUNFILE_STRING: return vl_string();
    case RUNFILE_PRIORITY: return priority_type(H5T_STD_I8LE);
    case RUNFILE_NAME: return rf_fixed_string(RUNFILE_NAME_MAX);
    case RUNFILE_FLAG: return H5Tcopy(H5T_STD_U8LE);
    case RUNFILE_CLASS: return H5Tcopy(H5T_STD_I8LE);
    case RUNFILE_TEXT: return rf_fixed_string(RUNFILE_EXPLAIN_MAX);
    }
    return H5I_INVALID_HID;
}

int rf_read_attr(hid_t obj, const char *name, enum runfile_type t, void *value)
{
    if (H5Aexists(obj, name) <= 0)
        return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return -1;
    hid_t mt = rf_mem_type(t);
    int rc = -1;
    if (t == RUNFILE_STRING) {
        hid_t ft = H5Aget_type(a);
        char *s = NULL;
        if (H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0 &&
            H5Aread(a, mt, &s) >= 0 && s) {
            *(char **)value = xstrdup(s);
            H5free_memory(s);
            rc = 0;
        }
        H5Tclose(ft);
    } else {
        rc = H5Aread(a, mt, value) < 0 ? -1 : 0;
    }
    H5Tclose(mt);
    H5Aclose(a);
    return rc;
}

/* ---- handles ---- */

struct runfile *rf_new(const char *path, bool writing)
{
    struct runfile *rf = xcalloc(1, sizeof(*rf));
    rf->path = xstrdup(path);
    rf->writing = writing;
    rf->file = H5I_INVALID_HID;
    rf->kernels = xmalloc(runfile_kernel_table.count * sizeof(hid_t));
    for (size_t i = 0; i < runfile_kernel_table.count; i++)
        rf->kernels[i] = H5I_INVALID_HID;
    rf->per_kernel = xmalloc(runfile_per_kernel_table.count * sizeof(hid_t));
    for (size_t i = 0; i < runfile_per_kernel_table.count; i++)
        rf->per_kernel[i] = H5I_INVALID_HID;
    rf->system = xmalloc(runfile_system_table.count * sizeof(hid_t));
    for (size_t i = 0; i < runfile_system_table.count; i++)
        rf->system[i] = H5I_INVALID_HID;
    rf->partition = rf->epoch_count = rf->event_count = rf->kernel_count = H5I_INVALID_HID;
    rf->guard.driver = H5I_INVALID_HID;
    rf->live_fd = -1;
    for (int i = 0; i < RF_EV_COUNT; i++)
        rf->events[i] = H5I_INVALID_HID;
    return rf;
}

static void close_dataset(hid_t *id)
{
    if (*id >= 0)
        H5Dclose(*id);
    *id = H5I_INVALID_HID;
}

static void free_strings(const struct runfile_table *t, void *target)
{
    for (size_t i = 0; i < t->count; i++)
        if (rf_is_string(t->fields[i].type)) {
            char **slot = (char **)((char *)target + t->fields[i].offset);
            free(*slot);
            *slot = NULL;
        }
}

herr_t rf_free(struct runfile *rf)
{
    for (size_t i = 0; i < runfile_kernel_table.count; i++)
        close_dataset(&rf->kernels[i]);
    for (size_t i = 0; i < runfile_per_kernel_table.count; i++)
        close_dataset(&rf->per_kernel[i]);
    for (size_t i = 0; i < runfile_system_table.count; i++)
        close_dataset(&rf->system[i]);
    for (int i = 0; i < RF_EV_COUNT; i++)
        close_dataset(&rf->events[i]);
    close_dataset(&rf->partition);
    close_dataset(&rf->epoch_count);
    close_dataset(&rf->event_count);
    close_dataset(&rf->kernel_count);
    herr_t rc = rf->file >= 0 ? H5Fclose(rf->file) : 0;
    if (rf->live_fd >= 0)
        close(rf->live_fd); /* the file is whole: runfile_being_recorded says 0 now */
    rf_guard_done(&rf->guard);
    free_strings(&runfile_header_table, &rf->hdr);
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++)
        free_strings(&runfile_kernel_table, &rf->hdr.kernels[k]);
    free(rf->kernels);
    free(rf->per_kernel);
    free(rf->system);
    free(rf->failed);
    free(rf->path);
    free(rf);
    return rc;
}

int runfile_close(struct runfile *rf, char *err, size_t errlen)
{
    if (!rf)
        return 0;
    rf_quiet();
    int rc = 0;
    if (rf->failed) {
        rc = rf_fail(err, errlen, "%s", rf->failed);
    } else if (rf->writing && (H5Fflush(rf->file, H5F_SCOPE_LOCAL) < 0 || rf->guard.failed)) {
        char why[256];
        if (rf->guard.failed)
            snprintf(why, sizeof(why), "%s", rf->guard.reason);
        else
            rf_h5_reason(why, sizeof(why));
        rc = rf_fail(err, errlen, "%s: cannot finish the run file: %s; it keeps %llu epochs",
                     rf->path, why, (unsigned long long)rf->nepochs);
    }
    char *path = xstrdup(rf->path);
    if (rf_free(rf) < 0 && rc == 0) {
        char why[256];
        rf_h5_reason(why, sizeof(why));
        rc = rf_fail(err, errlen, "%s: cannot close the run file: %s", path, why);
    }
    free(path);
    return rc;
}

const struct runfile_header *runfile_header(const struct runfile *rf)
{
    return &rf->hdr;
}

uint64_t runfile_epoch_count(const struct runfile *rf)
{
    return rf->nepochs;
}

uint64_t runfile_event_count(const struct runfile *rf)
{
    return rf->nevents;
}
