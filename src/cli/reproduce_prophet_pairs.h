/* reproduce_prophet_pairs — what the prophet experiments of `corun reproduce` share: the
 * --resume journal, the --shard part, and the runner of --accuracy's and --colocation's pairs
 * on forkpool workers (cmd_reproduce_prophet.c defines the experiments). */
#ifndef CORUN_REPRODUCE_PROPHET_PAIRS_H
#define CORUN_REPRODUCE_PROPHET_PAIRS_H

#include "corun/reproduce_prophet.h"

#include <stdbool.h>
#include <stddef.h>

struct repro_journal;

/* --resume FILE: each finished pair (configuration, for --scaleout) is kept in a journal, so a
 * run stopped part way goes on where it was when the same command is given again. */
struct prophet_journal {
    struct repro_journal *j;
    size_t resumed;
    bool warned; /* a failed put was reported */
};

/* Opens the journal at path for experiment `what` (no path: no journal, 0); -1 with a message
 * on stderr when it is refused. A torn tail cut off is reported. */
int pj_open(struct prophet_journal *jn, const char *path, const char *datadir, const char *what,
            bool quick, size_t size);
/* The run name pj_open puts in a journal's identity: "prophet WHAT[ --quick]". Heap. */
char *pj_identity(const char *what, bool quick);
/* The stored result of index i into out (size bytes); false when there is none. */
bool pj_get(struct prophet_journal *jn, size_t i, void *out, size_t size);
/* Keeps result i; a failure is reported once and the run goes on. */
void pj_put(struct prophet_journal *jn, size_t i, const void *rec);
/* Says how many results were read from it, and closes it. */
void pj_close(struct prophet_journal *jn);

/* --shard K/N (n 0: none): which part of an experiment's pairs or cells a run takes
 * (repro_in_shard). */
struct prophet_shard {
    unsigned k, n;
};

/* The pairs of --accuracy or --colocation as forkpool tasks (-j N). A finished pair lands in
 * its slot and in the journal; its rows are printed, in pair order, as soon as every pair
 * before it is in, so the output does not depend on N. A failed pair is reported and the others
 * go on (each finished one kept in the journal); the summary is then left out. */
struct pairs_run {
    const char *label; /* of the progress bar */
    const struct rp_pair *pairs;
    size_t n, rsize; /* pairs; bytes of one pair's journal record */
    char *recs;      /* n * rsize */
    bool *in;        /* [n]: the record is there (read or simulated) */
    size_t *todo, ntodo, resumed, printed, failed;
    size_t missing; /* pairs of other shards, not in the journal: no rows, no summary */
    struct prophet_shard sh;
    struct prophet_journal *jn;
    /* In a worker: simulate pair i into rec (rsize bytes, zeroed). */
    int (*run)(const struct pairs_run *pr, size_t i, void *rec, char *err, size_t errlen);
    /* In the parent: print pair i's rows. */
    void (*print)(struct pairs_run *pr, size_t i, const void *rec);
    const char *datadir;
    unsigned queries;
    /* The predictors' measurements shared by pairs (accel_memo), NULL: none. Each worker
     * fills its own copy; pr_done frees the parent's. */
    struct accel_memo *memo;
};

/* Pair i's record. */
void *pr_rec(const struct pairs_run *pr, size_t i);
/* Reads what the journal has, simulates the rest on `jobs` workers; 0 when every pair is in. */
int pr_run(struct pairs_run *pr, unsigned jobs);
void pr_done(struct pairs_run *pr);
/* After pr_run of a shard that left pairs to the others: the rows of the pairs it has and what
 * it did, instead of the summary; frees the run and closes the journal. A CLI_* code. */
int pr_shard_done(struct pairs_run *pr);
/* After a failed pr_run: prints the rows of the finished pairs not printed yet and a line on
 * what failed, then frees the run and closes the journal; CLI_FAILED. */
int pr_failed(struct pairs_run *pr);

#endif
