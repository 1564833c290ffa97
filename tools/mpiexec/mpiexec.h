/*
 * mpiexec: Faro's launcher and PMI-1 server.
 *
 * One process, one poll() loop (main.c) over: a signalfd for SIGCHLD and the
 * forwarded signals, each rank's PMI socket (pmi_server.c) and each rank's
 * stdout and stderr pipe (iofwd.c). Ranks are started by fork/exec (spawn.c),
 * optionally behind an exec prefix, the hook for remote launch later.
 *
 * A job ends when every rank has exited and its output has been drained. The
 * first failure (non-zero exit, signal, exit without finalize after init,
 * abort, timeout, a signal to mpiexec) decides the exit code and makes
 * mpiexec send SIGTERM to the remaining ranks, then SIGKILL after a grace.
 */
#ifndef FARO_MPIEXEC_H
#define FARO_MPIEXEC_H

#include <stddef.h>
#include <signal.h>
#include <sys/types.h>

#include "base/pmi_wire.h"

#define MPX_MAX_NP 4096         /* ranks per job; bounded by file descriptors too */
#define MPX_GRACE_MS 2000       /* SIGTERM to SIGKILL */
#define MPX_DRAIN_MS 1000       /* output drain after the last rank exits */
#define MPX_OUTBUF 65536        /* bytes buffered per output stream */
#define MPX_EXIT_TIMEOUT 124    /* like timeout(1) */
#define MPX_EXIT_NOEXEC 126     /* like the shell: found, cannot run */
#define MPX_EXIT_NOTFOUND 127   /* like the shell: not found */
#define MPX_EXIT_USAGE 2

struct mpx_opts {
    int np;
    int tag_output;
    int timeout_s;       /* 0: none */
    int verbose;
    char **env;          /* "VAR=VAL" set in every rank, in order given */
    size_t nenv;
    char **prefix;       /* exec prefix argv (NULL-terminated), or NULL */
    char **argv;         /* program and its arguments (NULL-terminated); NULL in a
                          * dry run without one */
    /* Affinity policy passed to the ranks as FARO_* (the library binds at
     * MPI_Init); NULL or 0: not given, the rank's own environment decides. */
    const char *map_by, *bind_to, *topology, *cpus_per_rank;
    int report_bindings;
    int dry_run;         /* print the placement (faro_info --map) and start nothing */
};

/* One output stream of one rank, forwarded line by line. */
struct mpx_stream {
    int fd;              /* read end of the rank's pipe; -1 once closed */
    int dest;            /* 1 or 2 */
    int rank;
    int midline;         /* the last chunk written did not end a line */
    size_t len;
    char buf[MPX_OUTBUF];
};

enum mpx_pmi_state { MPX_PMI_NONE, MPX_PMI_INITED, MPX_PMI_FINALIZED };

struct mpx_rank {
    int rank;
    pid_t pid;           /* 0 once reaped */
    int pmi_fd;          /* -1 once closed */
    enum mpx_pmi_state pmi_state;
    int in_barrier;
    struct faro_pmi_reader reader;
    struct mpx_stream out, err;
};

struct mpx_kvs;

struct mpx_job {
    struct mpx_opts opts;
    char kvsname[64];
    int np;
    struct mpx_rank *ranks;
    int alive;           /* ranks not yet reaped */
    int barrier_count;
    struct mpx_kvs *kvs;
    int ending;          /* 1 once the job is being torn down */
    int exit_code;       /* decided by the first failure */
    int killed;          /* SIGKILL already sent */
    long long kill_at;   /* monotonic ms to send SIGKILL; 0 none */
};

/* options.c: 0 to run; otherwise the exit code to leave with (help: 0 via *done). */
int mpx_opts_parse(int argc, char **argv, struct mpx_opts *o, int *done);
void mpx_opts_free(struct mpx_opts *o);

/* spawn.c */
int mpx_make_kvsname(char *buf, size_t len);
int mpx_check_program(const struct mpx_opts *o);
int mpx_spawn(struct mpx_job *job, const sigset_t *child_mask);

/* pmi_server.c */
struct mpx_kvs *mpx_kvs_new(void);
void mpx_kvs_free(struct mpx_kvs *kvs);
/* Serve every complete request on rank r's socket; closes it at EOF. */
void mpx_pmi_serve(struct mpx_job *job, struct mpx_rank *r);
/* Send one formatted reply line to rank r (len < 0: it did not fit). */
void mpx_pmi_send(struct mpx_rank *r, const char *line, int len);

/* names.c: serve a name service command (publish_name, lookup_name,
 * unpublish_name); 0 when m is none of them. */
int mpx_names_serve(struct mpx_rank *r, const struct faro_pmi_msg *m);

/* iofwd.c: read what is there (a few reads, or all: until it would block);
 * forward complete lines; write out the rest and close at EOF. */
void mpx_stream_init(struct mpx_stream *s, int fd, int dest, int rank);
void mpx_stream_read(struct mpx_stream *s, int tag, int all);
void mpx_stream_close(struct mpx_stream *s, int tag);

/* policy.c: in a rank (after the -x variables): set the FARO_* affinity
 * variables from the options, and OMP_NUM_THREADS/OMP_PLACES for
 * --cpus-per-rank unless already set. */
void mpx_policy_setenv(const struct mpx_opts *o);
/* --dry-run: run faro_info --map for the job's policy; returns the exit code. */
int mpx_dry_run(const struct mpx_opts *o);

/* main.c */
long long mpx_now_ms(void);
/* Begin ending the job with this exit code (the first call wins), after
 * printing why (a printf format; NULL when already printed). */
void mpx_job_fail(struct mpx_job *job, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
