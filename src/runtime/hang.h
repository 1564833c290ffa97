/*
 * The hang report (owner: hang.c): what each thread of this process is
 * blocked in, printed on request (faro-debug(7) gives the line format, which
 * mpiexec and tools/hangdoc parse).
 *
 * Recording. A blocking call that finds its request(s) not yet complete
 * puts a struct faro_wait on its own stack, links it into the process's
 * list (faro_wait_begin) and unlinks it when the wait ends (faro_wait_end):
 * a few stores, on the path that is about to wait anyway; the start time is
 * read at the wait's first idle poll (a coarse clock, in faro_hang_idle). A
 * call whose request is already complete, or completes at its first poll
 * (p2p/wait.c), records nothing, and nonblocking
 * calls never do. The list is touched under the library
 * lock at MPI_THREAD_MULTIPLE; below it only one thread is in MPI.
 *
 * Reporting. Printing from a signal handler is not safe (stdio, locks), so
 * the handler of FARO_HANG_SIGNAL (SIGUSR1) only sets a flag; every wait
 * loop checks it in its idle path (faro_progress_idle: one load and branch
 * per idle poll, nothing on a completing call) and the thread that polls
 * prints one line per blocked request of every thread, then an end line.
 * A dedicated thread was not chosen: it would need every other thread of
 * the program to block the signal (Faro cannot arrange that for threads the
 * program makes), and a process that is not in a wait loop has nothing to
 * report anyway. FARO_HANG_REPORT=S makes a rank report by itself when one
 * of its waits has lasted S seconds (checked in the same idle path), and
 * say "resumed" when a reported wait ends.
 *
 * Polling. A rank that spins in MPI_Test (Testall, Testany, Testsome) or
 * MPI_Iprobe (Improbe) on something that never comes is stuck as surely as
 * one in MPI_Wait, but no wait loop runs. Those calls already make one
 * progress poll when their request is not complete; after it,
 * faro_poll_idle counts the polls in a row that found no event on the same
 * key (the first request, or the probe's communicator): a compare, an
 * increment and a branch. An event, another key, or a blocking wait that
 * ends (faro_wait_end) starts the count again. Every FARO_POLL_TICK idle
 * polls the call describes itself to faro_hang_poll_tick, which reads the
 * clock and the messages the process sent and received since the last tick
 * (the MPI_T counts every transport keeps: a rank that polls in vain
 * between sends that leave at once is not stuck, and no new count sits on
 * the message path), takes the signal's flag and FARO_HANG_REPORT's timer, and prints
 * the poll in the report as "CALL (polling) for S s" once it has lasted
 * FARO_POLL_MIN_S. The record is the process's (the library lock guards
 * it); at MPI_THREAD_MULTIPLE a report printed by a thread in a blocking
 * wait does not show another thread's polling.
 */
#ifndef FARO_RUNTIME_HANG_H
#define FARO_RUNTIME_HANG_H

#include <stdatomic.h>

#include "mpi.h"

struct faro_request;

struct faro_wait {
    const char *fn;                  /* the MPI call that waits */
    struct faro_request *const *reqs; /* what it waits for (nreqs of them) */
    int nreqs;
    int any;                         /* one of them is enough (Waitany, Waitsome) */
    /* a probe waits for a message, not a request */
    MPI_Comm comm;
    int peer, tag;
    double since;                    /* monotonic seconds at the first idle poll; 0 before */
    int tid;                         /* at MPI_THREAD_MULTIPLE: the thread */
    int reported;                    /* printed by FARO_HANG_REPORT: say when it resumes */
    struct faro_wait *next, **pprev;
};

/* Set while the idle path must call faro_hang_idle: a wait to time, the
 * signal's flag, or FARO_HANG_REPORT's timer. */
extern atomic_int faro_hang_armed; /* lock-free: the signal handler sets it */

void faro_wait_begin(struct faro_wait *w);
void faro_wait_end(struct faro_wait *w);
/* From faro_progress_idle when faro_hang_armed is set. */
void faro_hang_idle(void);
/* MPI_Init: install the signal handler, read FARO_HANG_REPORT. */
void faro_hang_init(void);
/* Print the report now (the signal's work); also for tests and tools. */
void faro_hang_report(void);

/* Nonblocking collectives (coll/) describe their requests: the MPI function
 * and the point-to-point requests the schedule waits for now (at most max);
 * returns how many. Set by coll/ at start-up; the core never names coll/. */
typedef int faro_hang_sched_fn(struct faro_request *r, const char **fn,
                               struct faro_request **pending, int max);
extern faro_hang_sched_fn *faro_hang_sched;
/* Internal tags' owners, for the lines: coll/ names its tags. */
typedef const char *faro_hang_tag_fn(int tag);
extern faro_hang_tag_fn *faro_hang_coll_tag;

/* The polling record (above). */
struct faro_polling {
    const void *key;          /* the first request polled, or the probe's communicator */
    unsigned long long polls; /* polls in a row on key without an event */
    double since;             /* when its first tick ran, or messages last moved */
    unsigned long long moved; /* messages sent and received at the last tick */
    int reported;             /* printed by FARO_HANG_REPORT: say when it ends */
};
extern struct faro_polling faro_polling;

#define FARO_POLL_TICK 256
#define FARO_POLL_MIN_S 1.0

/* A tick of a poll still unanswered (w describes the call), and the end of
 * a reported poll. */
void faro_hang_poll_tick(const struct faro_wait *w);
void faro_hang_poll_ended(void);

/* After the progress poll (its events) of a Test or Iprobe call on key: 1
 * when the caller must describe its call to faro_hang_poll_tick (and its
 * request is still not complete). */
static inline int faro_poll_idle(const void *key, int events)
{
    struct faro_polling *p = &faro_polling;
    if (events || p->key != key) {
        if (__builtin_expect(p->reported, 0))
            faro_hang_poll_ended();
        p->key = key;
        p->polls = 0;
        return 0;
    }
    return ++p->polls % FARO_POLL_TICK == 0;
}

/* One request, for a line (a single wait with one request). */
#define FARO_WAIT_ONE(fn_, r_) {.fn = (fn_), .reqs = &(r_), .nreqs = 1}

#endif
