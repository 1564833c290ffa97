/*
 * mpiexec: Faro's launcher and PMI-1 server, and faro_proxy, its helper on
 * every host of a job that spans hosts.
 *
 * The job is a tree. Its root is mpiexec; every host of the job runs one
 * faro_proxy, started through an agent (ssh, rsh, srun, any command called
 * like ssh, or a plain fork for this machine) by mpiexec or, for large host
 * counts, by another proxy (mpx_tree_*: each node starts at most
 * --tree-width others, so a launch takes O(log hosts) rounds of the agent).
 * Without a host list there is no tree: mpiexec itself is the one node.
 *
 * Every node runs the same poll() loop (node.c) over:
 *   - the ranks it started itself (spawn.c): one PMI-1 socket each
 *     (pmi_server.c), a stdout and a stderr pipe each (iofwd.c), their exits
 *     (a signalfd for SIGCHLD and the signals it forwards);
 *   - its control links (ctl.c): one to its parent (a proxy), one to each
 *     child proxy, and a listening socket for the children to connect to.
 * Links are TCP, framed, and authenticated with the job key both ways: the
 * key reaches a proxy on its agent's standard input, never on a command line,
 * and a connection proves it knows the key by a keyed hash (SipHash) of the
 * other side's random challenge.
 *
 * What moves along the tree:
 *   down  LAUNCH (the job: program, environment, the host of every rank),
 *         FENCE_DOWN (every key put in a phase), SIGNAL, STDIN for rank 0;
 *   up    FENCE_UP (the subtree's puts, once every rank of the subtree
 *         entered the barrier), OUTPUT (whole lines, tagged), EXIT and ABORT
 *         of ranks, LOST (a child host that went away), DONE (the subtree has
 *         finished; with its PMI statistics), SPAWN (a rank's MPI_Comm_spawn).
 * A PMI barrier is thus one fence per phase: the data of the phase moves up
 * once and down once, and every get is answered by the rank's own proxy.
 *
 * Spawned jobs (MPI_Comm_spawn; subjob.c, spawn_req.c): a rank's PMI spawn
 * command goes up its tree to its mpiexec, and from a spawned job's mpiexec
 * on to the first one, which serves every spawn of the launch: it places the
 * new job, and starts an mpiexec of its own for it (the same program, with
 * the user's options and the job on a socket pair), with its own key-value
 * space, job key and tree. The answer (SPAWN_RESULT) goes back the same way.
 * The first mpiexec waits for every job it started; a failure of any of them
 * ends them all, as a failed rank ends its job. Names (names.c) are the
 * first mpiexec's too, for every job of the launch.
 *
 * Failure: the root decides. The first failure (a rank's non-zero exit,
 * signal, exit without finalize, abort, a lost host, the timeout, a signal
 * to mpiexec) decides the exit code; the root then sends SIGTERM to every
 * rank, SIGKILL after a grace. A link that closes before DONE, or stays
 * silent for --heartbeat seconds (every link carries a heartbeat), is a lost
 * host; a proxy that loses its parent kills its ranks and exits.
 */
#ifndef FARO_MPIEXEC_H
#define FARO_MPIEXEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "base/pmi_wire.h"
#include "hostlist.h"

#define MPX_MAX_NP 65536        /* ranks per job; bounded by file descriptors per host too */
#define MPX_GRACE_MS 2000       /* SIGTERM to SIGKILL */
#define MPX_DRAIN_MS 1000       /* output drain after the last rank exits */
#define MPX_OUTBUF 65536        /* bytes buffered per output stream */
#define MPX_EXIT_TIMEOUT 124    /* like timeout(1) */
#define MPX_EXIT_NOEXEC 126     /* like the shell: found, cannot run */
#define MPX_EXIT_NOTFOUND 127   /* like the shell: not found */
#define MPX_EXIT_LOST 255       /* a host was lost (as ssh says a connection failed) */
#define MPX_EXIT_USAGE 2
#define MPX_KEYLEN 16
#define MPX_TREE_WIDTH 32       /* children per node of the launch tree, by default */
#define MPX_HEARTBEAT_MS 1500   /* a silent link is lost after this, by default */
#define MPX_CONNECT_MS 60000    /* a proxy must connect within this after its start */
#define MPX_MAX_PENDING 64      /* connections accepted and not yet authenticated; past
                                 * it the oldest is closed (node.c) */

enum mpx_env_mode { MPX_ENV_ALL, MPX_ENV_NONE, MPX_ENV_LIST };

/* One program of the job. A command line `A : B` (MPMD) or a config file
 * gives several; their ranks come in order (A's first), and a rank's
 * MPI_APPNUM is its program's index. */
struct mpx_app {
    int np;              /* its ranks; 0: not given (one program only) */
    char **argv;         /* program and arguments (NULL-terminated) */
    char **env;          /* "VAR=VAL" for its ranks only (-x, -env), NULL-terminated */
    size_t nenv;
    const char *wdir;    /* its working directory (-wdir), or NULL: the job's */
};

struct mpx_opts {
    int np;              /* the sum of the programs' -n; 0: not given (the slots
                          * of the host list, else 1) */
    const char *tag;     /* output prefix pattern (%r rank, %h host), or NULL */
    int timeout_s;       /* 0: none */
    int verbose;
    char **env;          /* "VAR=VAL" set in every rank (-genv), in order given */
    size_t nenv;
    enum mpx_env_mode env_mode; /* what else of mpiexec's environment goes to other hosts */
    char **envlist;      /* -envlist names */
    size_t nenvlist;
    char **prefix;       /* exec prefix argv (NULL-terminated), or NULL */
    struct mpx_app *apps; /* the programs; none in a dry run without one */
    int napps;
    char **file_args;    /* words read from -configfile, owned (NULL-terminated) */
    /* Affinity policy passed to the ranks as FARO_* (the library binds at
     * MPI_Init); NULL or 0: not given, the rank's own environment decides. */
    const char *map_by, *bind_to, *topology, *cpus_per_rank;
    int report_bindings;
    /* Output into files, written on the rank's host: Hydra's -outfile-pattern
     * and -errfile-pattern (%r rank, %h host; files only), or Open MPI's
     * --output-filename DIR (DIR/1/rank.N/stdout and stderr, also copied to
     * mpiexec's own unless :nocopy). NULL: none. */
    const char *outfile_pattern, *errfile_pattern, *output_dir;
    int output_copy;
    int timestamp;       /* --timestamp-output: each line starts with the time */
    int display_map;     /* --display-map: print the rank -> host map first */
    int hang_report;     /* --hang-report S (hang.c); 0: only on SIGUSR1 and --timeout */
    int dry_run;         /* print the placement (faro_info --map) and start nothing */
    /* Hosts: none given (and no Slurm allocation) runs every rank here. */
    struct mpx_hostlist hosts;
    int have_hosts;
    int ppn;             /* -ppn / ppr:N:node; 0: the slots */
    enum mpx_map_policy map_policy;
    const char *ppr_local; /* --map-by ppr:N:socket etc.: needs -n (no topology here) */
    const char *launcher;    /* ssh, rsh, fork, slurm; NULL: ssh (slurm in an allocation) */
    char **launcher_exec;    /* -launcher-exec CMD, split; NULL: the launcher's own */
    const char *proxy_path;  /* faro_proxy to run on the hosts; NULL: next to mpiexec */
    int tree_width;
    int heartbeat_ms;
    int usize;           /* -usize / MPIEXEC_UNIVERSE_SIZE; 0: not given */
    int spawned_fd;      /* --faro-spawned-job FD: this mpiexec runs a spawned job; -1 */
    char **cmdline;      /* the global options as given (argv[1..]), for spawned jobs */
    int ncmdline;
};

/* A growable byte buffer (encoding frames and key-value data). */
struct mpx_buf {
    unsigned char *p;
    size_t len, cap;
    int oom;
};

/* Reading what an mpx_buf wrote; `bad` once anything was missing. */
struct mpx_rd {
    const unsigned char *p;
    size_t len, off;
    int bad;
};

/* One output stream of one rank, forwarded line by line. */
struct mpx_stream {
    int fd;              /* read end of the rank's pipe; -1 once closed */
    int dest;            /* 1 or 2 */
    int rank;
    int midline;         /* the last chunk written did not end a line */
    size_t len;
    char prefix[80];     /* the tag in front of each line ("" untagged) */
    size_t plen;
    int file_fd;         /* a copy of the raw stream goes here; -1: none */
    int forward;         /* lines go on to mpiexec (0: to the file only) */
    char buf[MPX_OUTBUF];
};

enum mpx_pmi_state { MPX_PMI_NONE, MPX_PMI_INITED, MPX_PMI_FINALIZED };

struct mpx_mcmd;

struct mpx_rank {
    int rank;            /* in the job */
    int local;           /* among this host's ranks */
    int app;             /* its program (struct mpx_app), MPI_APPNUM */
    pid_t pid;           /* 0 once reaped */
    int pmi_fd;          /* -1 once closed */
    enum mpx_pmi_state pmi_state;
    int in_barrier;
    struct faro_pmi_reader reader;
    struct mpx_stream out, err;
    int stdin_fd;        /* rank 0 on a proxy: the write end of its stdin; else -1 */
    unsigned long pmi_msgs, pmi_bytes; /* requests and bytes on its PMI socket, both ways */
    struct mpx_mcmd *mcmd; /* a spawn command being read (spawn_req.c), or NULL */
};

/* A framed, buffered, non-blocking control connection. */
struct mpx_conn {
    int fd;              /* -1 once closed */
    struct mpx_buf in, out;
    size_t in_off, out_off;
    size_t max_frame;    /* larger frames are a protocol error */
    long long last_rx, last_tx;
    unsigned long long frames_in, frames_out, bytes_in, bytes_out;
    char why[160];       /* why it failed */
};

enum mpx_link_state { MPX_LINK_STARTING, MPX_LINK_UP, MPX_LINK_DONE, MPX_LINK_LOST };

/* A child proxy as its parent sees it. */
struct mpx_link {
    int host;            /* its host index */
    int end;             /* its slice of the tree: it starts hosts (host, end) */
    enum mpx_link_state state;
    pid_t agent;         /* the agent process that started it; 0 once reaped */
    long long started;   /* when its agent was started */
    struct mpx_conn c;
    struct mpx_buf early;   /* frames for it from before it connected (stdin) */
};

/* A connection accepted but not yet authenticated. */
struct mpx_pending {
    struct mpx_conn c;
    unsigned char nonce[16];
    long long since;
};

/* PMI statistics of a subtree, summed up the tree for mpiexec -v. */
struct mpx_stats {
    uint64_t ranks, msgs, bytes, max_msgs, max_bytes;
    uint64_t ctl_frames, ctl_bytes; /* control traffic of the subtree's links */
};

struct mpx_kvs;

struct mpx_subjob;

struct mpx_job {
    struct mpx_opts opts;
    char kvsname[64];
    int np;
    int universe;        /* MPI_UNIVERSE_SIZE: the slots this launch knows; -1 unknown */
    int spawned;         /* started by MPI_Comm_spawn (PMI_SPAWNED=1 in its ranks) */
    char label[48];      /* "" for the job of the command line, else "spawned job N" */
    char **preput;       /* key, value, ...: in the store before the ranks start */
    /* The job map, known at every node (NULL in a job without hosts). */
    int nhosts;
    char **hostname;     /* as the launcher used it: the ranks' node names */
    int *host_of;        /* per rank */
    char mapping[1024];  /* PMI_process_mapping, or "" */
    int host;            /* this node's host, -1 at mpiexec */
    const char *tag;     /* output prefix pattern, or NULL */
    const char *wdir;    /* the ranks' working directory unless their program has
                          * its own (-wdir); NULL: the node's own */
    char **fwd_env;      /* "VAR=VAL" mpiexec forwards to the ranks of every host */
    /* This node's own ranks. */
    int nlocal;
    struct mpx_rank *ranks;
    int alive;           /* ranks not yet reaped */
    int barrier_count;
    struct mpx_kvs *kvs;
    /* The tree: a parent (proxies) and children. */
    int is_root;
    struct mpx_conn *parent;
    struct mpx_link *kids;
    int nkids;
    int listen_fd;
    struct mpx_pending *pending;
    int npending;
    long long accept_paused_until; /* out of descriptors: accept nothing before (node.c) */
    long long stranger_warned[2]; /* the last warning about strangers: refused, no fds */
    int strangers_unsaid[2];     /* strangers turned away since that warning */
    char **agent;        /* how this node starts its children (argv prefix), NULL: fork */
    int agent_all;       /* use it for this machine's name too (-launcher-exec) */
    int agent_shell;     /* the agent hands the command to a shell (ssh): quote it */
    const char *proxy_path;
    const char *tcp_if;  /* FARO_TCP_IF of mpiexec, for the links */
    char ctl_if[64];     /* the interface this node's parent link went out of */
    char addrs[1024];    /* what the children connect to: "a.b.c.d:port,..." */
    unsigned char key[MPX_KEYLEN];
    struct mpx_buf launch;  /* the LAUNCH payload, sent to every child */
    int heartbeat_ms;
    /* The fence of the current phase. */
    int fence_kids;      /* children whose FENCE_UP arrived */
    int fence_sent;      /* this phase went up (or, at mpiexec, down) already */
    struct mpx_buf fence;   /* puts of the phase from this subtree */
    unsigned fences;     /* phases completed */
    uint64_t fence_bytes;   /* key-value bytes that fences moved down from the root */
    /* stdin for rank 0 on another host (mpiexec) or its pipe (its proxy). */
    int stdin_open;      /* mpiexec still reads its stdin for rank 0 */
    uint64_t stdin_sent, stdin_acked;
    struct mpx_buf stdin_q; /* proxy: bytes for rank 0 not yet written */
    int stdin_eof;       /* proxy: close rank 0's stdin once the queue is written */
    /* mpiexec's queued output for its stdout (1) and stderr (2). */
    struct mpx_buf outq[3];
    size_t outq_off[3];
    int out_kind[3];     /* 0 unknown, 1 a file (writes do not block), 2 may block */
    /* Ending. */
    int orphaned;        /* a proxy that lost its parent */
    int ending;          /* 1 once the job is being torn down */
    int exit_code;       /* decided by the first failure */
    int killed;          /* SIGKILL already sent */
    long long kill_at;   /* monotonic ms to send SIGKILL; 0 none */
    /* mpiexec: the first rank that ended the job because it lost contact
     * with another (its abort named lost_rank), held until its due time so
     * that the lost rank's own end, reported meanwhile, is the verdict. */
    struct {
        long long due;   /* monotonic ms; 0 none held */
        int rank, code, lost;
        char msg[1024];
    } lost_report;
    struct mpx_stats stats; /* the subtree's, children's included once DONE */
    long long t_start;
    struct mpx_hang *hang; /* mpiexec: the hang doctor (hang.c); NULL elsewhere */
    /* Spawned jobs (subjob.c): the first mpiexec's list of the mpiexecs it
     * started for them; a spawned job's mpiexec's link to the first one. */
    struct mpx_subjob **subjobs;
    int nsubjobs, next_label;
    int *host_used;      /* ranks of all jobs on each host of the command line */
    struct mpx_conn *top;
    int top_told;        /* a spawned job's mpiexec said STARTED or FAILED */
};

/* opt_table.c: the help text, and every option with its spellings (blank-
 * separated, the help's first) and the words after it: a name not in the
 * table is an unknown option, and the unknown-option error lists the table,
 * so the list cannot miss one the parser takes. */
extern const char mpx_usage[];
enum { MPX_OPT_ENV = -1 }; /* -env, -genv: VAR=VALUE, or VAR VALUE */
struct mpx_opt_spec {
    const char *names;
    int words;  /* values after the option, or MPX_OPT_ENV */
    int hidden; /* not in the list: refused with a message, or internal */
};
const struct mpx_opt_spec *mpx_opt_find(const char *name); /* NULL: unknown */
/* The words after option SP; NEXT (may be NULL) is the first of them. -genv
 * and -env take one when it holds '=' (VAR=VALUE, as Hydra takes it), else
 * two (VAR VALUE). */
int mpx_opt_words(const struct mpx_opt_spec *sp, const char *next);
/* Every listed spelling, ", " between, then "--" and a newline. */
void mpx_opt_print_valid(FILE *f);

/* options.c: 0 to run; otherwise the exit code to leave with (help: 0 via *done). */
int mpx_opts_parse(int argc, char **argv, struct mpx_opts *o, int *done);
void mpx_opts_free(struct mpx_opts *o);
/* The argv of a spawned job's mpiexec: self, the global options given to
 * this one (but -n, --timeout, --dry-run, -usize), --faro-spawned-job fd. */
char **mpx_opts_respawn(const struct mpx_opts *o, const char *self, int fd);
/* Split CMD at blanks into a NULL-terminated argv; NULL when empty. */
char **mpx_split(const char *cmd);
void mpx_argv_free(char **v);

/* apps.c: the programs of an MPMD job. */
/* Read a config file (Hydra's -configfile, Open MPI's --app): one program
 * with its options per line, '#' comments; the words, with ":" between lines,
 * NULL-terminated (free with mpx_argv_free). NULL with err set on failure. */
char **mpx_apps_read_file(const char *path, char *err, size_t errlen);
/* Give the program its ranks once the job's size is known: a single program
 * without -n gets them all (options.c refuses several without -n). */
void mpx_apps_resolve(struct mpx_opts *o, int np);
/* The program of a rank. */
int mpx_app_of(const struct mpx_opts *o, int rank);

/* hang.c: mpiexec's hang doctor (faro-debug(7)). */
int mpx_hang_init(struct mpx_job *job);
void mpx_hang_free(struct mpx_job *job);
/* Lines of the ranks' stderr as they reach mpiexec. */
void mpx_hang_feed(struct mpx_job *job, const char *p, size_t n);
void mpx_hang_exited(struct mpx_job *job, int rank);
/* SIGUSR1 to mpiexec: a report round now. */
void mpx_hang_ask(struct mpx_job *job, long long now);
/* The timeout expired: 1 when a report round runs first (it ends the job). */
int mpx_hang_timeout(struct mpx_job *job, long long now);
/* A rank died of the report's signal: during the timeout's round, end the
 * round and the job as timed out now and return 1; else 0. */
int mpx_hang_timed_out(struct mpx_job *job);
/* Each turn of the loop: start or finish a round; *next: its deadline. */
void mpx_hang_tick(struct mpx_job *job, long long now, long long *next);

/* spawn.c */
int mpx_make_kvsname(char *buf, size_t len);
/* Every program of o (and the exec prefix), as faro_program_check (base/
 * program.h); prints why not. 0, or the exit code a shell would give. */
int mpx_check_program(const struct mpx_opts *o);
int mpx_spawn(struct mpx_job *job, const sigset_t *child_mask);
/* Messages name ranks of spawned jobs with the job: " of spawned job 2", or "". */
const char *mpx_job_of(const struct mpx_job *job);

/* pmi_server.c */
struct mpx_kvs *mpx_kvs_new(void);
void mpx_kvs_free(struct mpx_kvs *kvs);
int mpx_kvs_put(struct mpx_kvs *kvs, const char *key, const char *val);
/* Put key, value, key, value... (a spawned job's preput keys). */
int mpx_kvs_put_pairs(struct mpx_kvs *kvs, char *const *kv);
/* Serve every complete request on rank r's socket; closes it at EOF. */
void mpx_pmi_serve(struct mpx_job *job, struct mpx_rank *r);
/* The fence of the phase completed: answer every local rank's barrier. */
void mpx_pmi_barrier_done(struct mpx_job *job);
/* Send one formatted reply line to rank r (len < 0: it did not fit). */
void mpx_pmi_send(struct mpx_rank *r, const char *line, int len);

/* names.c: serve a name service command (publish_name, lookup_name,
 * unpublish_name) of local rank r; 0 when m is none of them. A proxy sends
 * it up (NAME_REQ), a spawned job's mpiexec on to the first one, which
 * answers down (NAME_REP) to the rank's host: one table for the launch. */
int mpx_names_serve(struct mpx_job *job, struct mpx_rank *r, const struct faro_pmi_msg *m);
/* mpiexec: a NAME_REQ from below. */
void mpx_names_request(struct mpx_job *job, struct mpx_rd *p);
/* The first mpiexec: the NAME_REP payload for a NAME_REQ payload (-1 when
 * it is malformed). */
int mpx_names_answer(struct mpx_rd *req, struct mpx_buf *rep);
/* A NAME_REP from above, for one of this node's ranks or one below. */
void mpx_names_reply(struct mpx_job *job, struct mpx_rd *p);

/* spawn_req.c: the PMI-1 spawn command (MPICH's "mcmd=spawn" lines up to
 * "endcmd", one block per command) and its way to the first mpiexec and
 * back. A line of rank r that belongs to one: 1 when taken. */
int mpx_spawn_line(struct mpx_job *job, struct mpx_rank *r, const char *line, size_t len);
/* A request of rank `rank` on host `host` (-1: a job without hosts) reached
 * this node's root: serve it (the first mpiexec) or pass it on. */
void mpx_spawn_request(struct mpx_job *job, int host, int rank, const void *req, size_t len);
/* The answer for that rank: to its PMI socket here, or down the tree. */
void mpx_spawn_reply(struct mpx_job *job, int host, int rank, int ok, const char *msg);
/* A SPAWN_RESULT payload (host, rank, ok, msg) from above. */
void mpx_spawn_result(struct mpx_job *job, struct mpx_rd *p);
void mpx_mcmd_free(struct mpx_rank *r);

/* subjob.c: spawned jobs. At the first mpiexec: start one for the request
 * of rank (host, rank) of job `from` (-1: its own, else a subjob index). */
void mpx_subjob_start(struct mpx_job *job, int from, int host, int rank, const void *req,
                      size_t len);
/* Its loop: what the subjobs' mpiexecs sent; 1 when pid was one of them. */
void mpx_subjob_input(struct mpx_job *job, int i);
struct mpx_conn *mpx_subjob_conn(struct mpx_job *job, int i); /* NULL: gone */
int mpx_subjob_reaped(struct mpx_job *job, pid_t pid, int status);
int mpx_subjobs_running(const struct mpx_job *job);
void mpx_subjobs_signal(struct mpx_job *job, int sig);
void mpx_subjobs_free(struct mpx_job *job);
/* At a spawned job's mpiexec: read its job from the first mpiexec (0, or -1
 * with err); say that its ranks started, or why they could not; what the
 * first mpiexec sends later. */
int mpx_subjob_receive(struct mpx_job *job, char *err, size_t errlen);
void mpx_subjob_started(struct mpx_job *job);
/* With hosts: STARTED once every proxy it starts itself has connected. */
void mpx_subjob_check_started(struct mpx_job *job);
void mpx_subjob_failed(struct mpx_job *job, const char *why);
/* It started, and now fails with code: the first mpiexec ends the launch at
 * once (before the failure's consequences elsewhere can speak first). */
void mpx_subjob_ending(struct mpx_job *job, int code);
void mpx_top_input(struct mpx_job *job);


/* iofwd.c: read what is there (a few reads, or all: until it would block);
 * forward complete lines; write out the rest and close at EOF. */
void mpx_stream_init(struct mpx_job *job, struct mpx_stream *s, int fd, int dest, int rank);
/* Open rank r's output files, if any (before it starts); -1 with err set. */
int mpx_stream_files(struct mpx_job *job, struct mpx_rank *r, char *err, size_t errlen);
void mpx_stream_read(struct mpx_job *job, struct mpx_stream *s, int all);
void mpx_stream_close(struct mpx_job *job, struct mpx_stream *s);
/* Where a node's output goes: its stdout/stderr (mpiexec, queued) or its parent. */
void mpx_output(struct mpx_job *job, int dest, const char *p, size_t n);
/* mpiexec: write what is queued for dest without blocking; bytes queued. */
void mpx_output_flush(struct mpx_job *job, int dest);
size_t mpx_output_queued(const struct mpx_job *job, int dest);
size_t mpx_output_pending(const struct mpx_job *job);
/* Write what is queued, waiting up to ms for a slow reader (at the end). */
void mpx_output_drain(struct mpx_job *job, int ms);

/* policy.c: in a rank (after the -x variables): set the FARO_* affinity
 * variables from the options, and OMP_NUM_THREADS/OMP_PLACES for
 * --cpus-per-rank unless already set. */
void mpx_policy_setenv(const struct mpx_opts *o);
/* --dry-run: run faro_info --map for the job's policy; returns the exit code. */
int mpx_dry_run(const struct mpx_opts *o, int np);
/* The directory of the running program (for faro_info, faro_proxy). */
void mpx_self_dir(char *dir, size_t len);

/* ctl.c: buffers, frames, authentication. */
void mpx_buf_put(struct mpx_buf *b, const void *p, size_t n);
void mpx_buf_u32(struct mpx_buf *b, uint32_t v);
void mpx_buf_str(struct mpx_buf *b, const char *s);
void mpx_buf_strv(struct mpx_buf *b, char *const *v); /* count, then each; NULL: 0 */
void mpx_buf_free(struct mpx_buf *b);
void mpx_rd_init(struct mpx_rd *r, const void *p, size_t len);
uint32_t mpx_rd_u32(struct mpx_rd *r);
const char *mpx_rd_str(struct mpx_rd *r);
char **mpx_rd_strv(struct mpx_rd *r); /* a new NULL-terminated array of pointers into r */
const void *mpx_rd_bytes(struct mpx_rd *r, size_t n);

enum mpx_msg {
    MPX_MSG_CHALLENGE = 1, MPX_MSG_HELLO, MPX_MSG_WELCOME, MPX_MSG_LAUNCH, MPX_MSG_HEARTBEAT,
    MPX_MSG_FENCE_UP, MPX_MSG_FENCE_DOWN, MPX_MSG_EXIT, MPX_MSG_ABORT, MPX_MSG_OUTPUT,
    MPX_MSG_LOST, MPX_MSG_DONE, MPX_MSG_SIGNAL, MPX_MSG_STDIN, MPX_MSG_STDIN_ACK,
    MPX_MSG_NAME_REQ, MPX_MSG_NAME_REP,
    /* spawned jobs: up the tree and to the first mpiexec, and back */
    MPX_MSG_SPAWN, MPX_MSG_SPAWN_RESULT,
    /* between the first mpiexec and a spawned job's: the job, how its start went */
    MPX_MSG_JOB, MPX_MSG_STARTED, MPX_MSG_FAILED, MPX_MSG_ENDING,
};
#define MPX_CONN_CLOSED "the connection was closed" /* c->why at end of file */
#define MPX_FRAME_HDR 8
#define MPX_FRAME_MAX (256u << 20)  /* after authentication */
#define MPX_FRAME_AUTH_MAX 64       /* before */

void mpx_conn_init(struct mpx_conn *c, int fd, size_t max_frame);
/* Append a frame of type with payload a then b to out. */
void mpx_frame_put(struct mpx_buf *out, int type, const void *a, size_t alen, const void *b,
                   size_t blen);
void mpx_conn_close(struct mpx_conn *c);
/* Queue a frame of type with payload a then b (either may be empty) and
 * write what the socket takes now. -1 when the connection already failed. */
int mpx_conn_send(struct mpx_conn *c, int type, const void *a, size_t alen, const void *b,
                  size_t blen);
/* Write queued bytes; -1 on error (c->why). */
int mpx_conn_flush(struct mpx_conn *c);
/* Read what is there; -1 at end of file or on error (c->why). */
int mpx_conn_fill(struct mpx_conn *c);
/* The next complete frame: 1 with its type and payload, 0 when none, -1 for
 * an oversized frame. The payload stays valid until the next fill. */
int mpx_conn_frame(struct mpx_conn *c, int *type, struct mpx_rd *payload);
size_t mpx_conn_pending(const struct mpx_conn *c);
/* The keyed hash that proves knowledge of the job key. */
uint64_t mpx_auth_mac(const unsigned char key[MPX_KEYLEN], const char *role,
                      const unsigned char nonce[16], uint32_t id);
int mpx_random(void *p, size_t n);

/* launch.c: the tree's connections and the start of child proxies. */
/* Listen for children; fills job->addrs. all_local: every host is this machine. */
int mpx_listen(struct mpx_job *job, int all_local, char *err, size_t errlen);
/* Start child proxy k through the agent, handing it the key on its stdin. */
int mpx_start_child(struct mpx_job *job, struct mpx_link *k, char *err, size_t errlen);
/* The agent command line for a host (for --dry-run and -v). */
void mpx_agent_line(const struct mpx_job *job, int host, char *buf, size_t len);
/* Is host name `name` this machine? */
int mpx_host_is_local(const char *name);
/* Set up job->kids for the hosts (lo, hi) that this node starts. */
int mpx_kids_init(struct mpx_job *job, int lo, int hi);
/* A proxy: connect to one of the parent's addresses, authenticate; fills
 * job->ctl_if. Returns the connected fd or -1. */
int mpx_connect_parent(struct mpx_job *job, const char *addrs, uint32_t id, char *err,
                       size_t errlen);

/* node.c: the loop. */
void mpx_node_loop(struct mpx_job *job, int sfd);
/* Send to a child, or keep it until the child connects. */
void mpx_kid_send(struct mpx_job *job, struct mpx_link *k, int type, const void *a,
                  size_t alen, const void *b, size_t blen);
/* A proxy: write what is queued for rank 0's stdin; acknowledge it up. */
void mpx_stdin_write(struct mpx_job *job);

/* tree.c: what flows up and down the tree. */
void mpx_kid_message(struct mpx_job *job, struct mpx_link *k, int type, struct mpx_rd *p);
void mpx_parent_message(struct mpx_job *job, int type, struct mpx_rd *p);
struct mpx_link *mpx_kid_for(struct mpx_job *job, int host);
void mpx_kid_lost(struct mpx_job *job, struct mpx_link *k, const char *why);
void mpx_host_lost(struct mpx_job *job, int host, const char *why);
/* mpiexec judges a rank's end; a proxy reports its own ranks' ends up. */
void mpx_rank_ended(struct mpx_job *job, int rank, long pid, int status, int pmi_state);
void mpx_report_exit(struct mpx_job *job, const struct mpx_rank *r, long pid, int status);
void mpx_stats_local(struct mpx_job *job);
void mpx_stats_encode(const struct mpx_stats *s, struct mpx_buf *b);
/* Encode the job for LAUNCH (mpiexec) / decode it (proxies). */
int mpx_job_encode(struct mpx_job *job);
int mpx_job_decode(struct mpx_job *job, struct mpx_rd *r, char *err, size_t errlen);
/* A local rank's put, barrier entry and abort. */
void mpx_fence_put(struct mpx_job *job, const char *key, const char *val);
void mpx_fence_local_ready(struct mpx_job *job);
/* A rank's abort. how: MPX_ABORT_PROGRAM (MPI_Abort), MPX_ABORT_ERROR (the
 * library ended the job on an error: its abort's error=1), or the rank it
 * lost contact with (its lost_rank, >= 0). */
#define MPX_ABORT_PROGRAM (-1)
#define MPX_ABORT_ERROR (-2)
void mpx_rank_aborted(struct mpx_job *job, int rank, int code, const char *msg, int how);
/* mpiexec: end the job with the held lost-contact report once it is due
 * (nothing else explained it); else lower *next to its due time. */
void mpx_lost_report_due(struct mpx_job *job, long long now, long long *next);
/* The rank's name in messages: "rank 3 (pid 123 on h2)" or "rank 3 (pid 123)". */
void mpx_rank_name(const struct mpx_job *job, int rank, long pid, char *buf, size_t len);
/* Send sig to every rank of the subtree. */
void mpx_signal_all(struct mpx_job *job, int sig);
void mpx_job_free(struct mpx_job *job);
/* Remove the files /dev/shm/<jobid>-* a crashed rank may have left here. */
void mpx_clean_shm(const struct mpx_job *job);

/* node.c */
long long mpx_now_ms(void);
/* Block SIGCHLD and the signals a node passes on (old: the mask before) and
 * return a signalfd for them; children get `old` back before exec. */
int mpx_signals(sigset_t *old);
/* Several descriptors per rank: use the hard limit, not the soft one. */
void mpx_raise_nofile(void);
/* "mpiexec" or "faro_proxy on HOST", for messages. */
const char *mpx_me(const struct mpx_job *job);
/* Begin ending the job with this exit code (the first call wins), after
 * printing why (a printf format; NULL when already printed). */
void mpx_job_fail(struct mpx_job *job, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* tree.c: the ranks of host h as text ("2-3" or "0,4,8"), for messages. */
void mpx_host_ranks(const struct mpx_job *job, int h, char *buf, size_t len);

#endif
