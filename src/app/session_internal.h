/* session_internal — the session's state, shared by session.c (simulating) and
 * session_record.c (recording, replay, branching). Nothing outside src/app includes it. */
#ifndef CORUN_SESSION_INTERNAL_H
#define CORUN_SESSION_INTERNAL_H

#include <stdbool.h>

#include "corun/runfile.h"
#include "corun/session.h"
#include "corun/solo.h"

struct session {
    const struct scenario *sc; /* &owned_sc when the session loaded it itself */
    struct scenario owned_sc;
    bool owns_sc;
    struct gpu *gpu; /* NULL for a replay */
    struct solo_cache *solo;
    struct solo_trace *ref[GPU_MAX_KERNELS]; /* private-mode reference of each kernel */
    uint64_t insts_at_start[GPU_MAX_KERNELS];
    struct session_epoch *epochs;
    unsigned nepochs, cap;
    struct session_event *events;
    unsigned nevents, events_cap;
    struct runfile *rec;              /* recording to this run file, or NULL */
    char *rec_path;                   /* the run file recorded to or replayed from */
    char error[512];                  /* the last failure, for session_error */
    const struct predictor_ops *pred; /* the active predictor, or NULL */
    void *pred_state;
};

/* A fresh epoch record at the end of s->epochs (not yet counted in nepochs). */
struct session_epoch *session_new_epoch(struct session *s);
/* Append e to the run file being recorded, if any: 0, or -1 with s->error set (recording
 * stops; the file keeps every epoch before). */
int session_record_epoch(struct session *s, const struct session_epoch *e);
/* Fill e's predictions (np_pred, are, pred_class, predictor) from the active predictor, or
 * mark them missing; e's counters and true NP are already in. */
void session_predict_epoch(struct session *s, struct session_epoch *e);
/* Drop the active predictor (no event). */
void session_drop_predictor(struct session *s);
/* Close the run file being recorded, if any; a failure is left in s->error. */
int session_stop_recording(struct session *s);

#endif
