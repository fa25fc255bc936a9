/* modelfile — trained predictor coefficients in data/models/MODEL-PRESET.cfg (libconfig), one
 * file per model and GPU preset, described by a settings table like every other file:
 *
 *   model = "hsm"; gpu = "hbm80"; sms = 80; c1 = 0.41; c2 = 0.27; r2 = 0.93; points = 10;
 *
 * A network model (themis) holds arrays instead of c1 and c2:
 *
 *   model = "themis"; gpu = "themis60"; sms = 60; layers = [12, 12, 12, 2];
 *   input_mean = [...]; input_scale = [...];   (layers[0] each: z = (x - mean) / scale)
 *   weights = [...];                           (the network's parameters, mlp.h's order)
 *   train_error = 0.05; test_error = 0.09; points = 1800;
 *
 * gpu and sms record the configuration it was trained on; files older than sms lack it. A
 * model used on another preset or SM count still loads: modelfile_training_warning says so.
 * Every message about a missing or corrupt file names the file (and line) and the command
 * that regenerates it. */
#ifndef CORUN_MODELFILE_H
#define CORUN_MODELFILE_H

#include <stddef.h>

#include "corun/conftable.h"
#include "corun/diag.h"

struct gpu_config;

struct modelfile {
    char *model;     /* "hsm" */
    char *gpu;       /* the preset it was trained for */
    unsigned sms;    /* the SM count it was trained on; 0: not recorded (an older file) */
    double c1, c2;   /* HSM eq. 3/5: predicted utilization = c1 * RBH + c2 */
    double r2;       /* of the fit, for people reading the file */
    unsigned points; /* training points */
    /* Network models only (modelfile_holds_weights): layer widths, inputs first, and one flat
     * array: input mean [layers[0]], input scale [layers[0]], then the network's parameters. */
    unsigned *layers;
    size_t nlayers;
    double *weights;
    size_t nweights;
    double train_error, test_error; /* mean relative error of NP, for people reading the file */
};

extern const struct conf_table modelfile_table;         /* coefficient models (hsm) */
extern const struct conf_table modelfile_network_table; /* network models (themis) */

/* 1 when model's files hold a network (layers and weights) rather than coefficients. */
int modelfile_holds_weights(const char *model);

/* DATADIR/data/models/MODEL-GPU.cfg; the caller frees. */
char *modelfile_path(const char *datadir, const char *model, const char *gpu);
/* The command that regenerates the file for model and gpu; the caller frees. */
char *modelfile_regenerate_command(const char *model, const char *gpu);

/* Load path, which must hold model `model` (meant for preset gpu, named in the regenerate
 * line). Every mistake goes to diags ("FILE:LINE: SETTING: ..."), followed by one line saying
 * how to regenerate the file. Returns 0, or -1 (out is then empty). Release with
 * modelfile_done either way. */
int modelfile_load(const char *path, const char *model, const char *gpu, struct modelfile *out,
                   struct diag *diags);
void modelfile_done(struct modelfile *m);

/* When m (loaded from path) is used on preset gpu with sms SMs and was trained on another
 * preset or SM count, or does not say which: 1 with a message naming both configurations in
 * out[len]. When it is used on its own preset and SM count but cfg (the GPU it is used on)
 * changes other settings of that preset (DATADIR/data/gpus/GPU.cfg; `corun train` trains on
 * a preset as it is): 1 with a message naming them (cfg or datadir NULL: not compared). Else
 * 0 (out empty). */
int modelfile_training_warning(const struct modelfile *m, const char *path, const char *gpu,
                               unsigned sms, const struct gpu_config *cfg, const char *datadir,
                               char *out, size_t len);

/* Write m to path (replacing it), headed by comment (lines without '#'; may be NULL). Returns
 * 0, or -1 with a message naming the file. */
int modelfile_write(const char *path, const struct modelfile *m, const char *comment, char *err,
                    size_t errlen);

/* modelfile_write, keeping the model path held (a regular file) as PATH.prev: *kept is then
 * that name (the caller frees), else NULL. Two writers of one path take turns (a lock on its
 * directory, where the file system has locks), so each model stays whole in path or PATH.prev
 * but the oldest. 0; -1 with a message when nothing was written (path and PATH.prev are as
 * they were); 1 with a message when path was written but the model replaced is in the file
 * the message names, not PATH.prev. */
int modelfile_replace(const char *path, const struct modelfile *m, const char *comment, char **kept,
                      char *err, size_t errlen);

#endif
