/*
 * mpiexec's hang doctor (faro-debug(7), FOR LAUNCHERS): with --hang-report S
 * the ranks get FARO_HANG_REPORT=S, so a rank blocked S seconds in MPI
 * reports what it waits for on stderr by itself, and says "resumed" when
 * the call returns. mpiexec reads those lines as they pass through its
 * stderr (they reach it from every host) into a wait-for graph
 * (tools/hangdoc/waitfor.h). When every running rank has a standing report
 * (--hang-report only), when --timeout expires (with or without
 * --hang-report), or when mpiexec gets SIGUSR1, it asks every rank inside
 * MPI for a fresh report (SIGUSR1 to the ranks between MPI_Init and
 * MPI_Finalize), collects for up to HANG_COLLECT_MS, and prints the summary.
 * A deadlock found without being asked (every rank blocked) ends the job with
 * exit code 1: no message can free it. Only mpiexec (the root) runs this.
 */
#include "config.h"

#include "mpiexec.h"
#include "../hangdoc/waitfor.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HANG_COLLECT_MS 2000
#define HANG_LINE_MAX 2048

enum hang_why { HANG_IDLE, HANG_BLOCKED, HANG_TIMEOUT, HANG_ASKED };

struct mpx_hang {
    struct faro_waitfor *g;
    int seconds;            /* --hang-report; 0: only when asked (SIGUSR1) */
    enum hang_why why;      /* the round under way, or HANG_IDLE */
    long long until;        /* end of the round's collection */
    long long quiet_until;  /* no round for all-blocked before this */
    int timeout_done;       /* the timeout's round ran */
    int rounds;             /* all-blocked rounds without a deadlock: each waits longer */
    size_t plen;            /* a line cut between two chunks */
    char partial[HANG_LINE_MAX];
};

int mpx_hang_init(struct mpx_job *job)
{
    struct mpx_hang *h = calloc(1, sizeof *h);
    if (!h || !(h->g = faro_waitfor_new(job->np))) {
        free(h);
        return -1;
    }
    h->seconds = job->opts.hang_report;
    job->hang = h;
    return 0;
}

void mpx_hang_free(struct mpx_job *job)
{
    if (job->hang)
        faro_waitfor_free(job->hang->g);
    free(job->hang);
    job->hang = NULL;
}

static void hang_line(struct mpx_hang *h, const char *line, size_t n)
{
    char buf[HANG_LINE_MAX];
    if (n >= sizeof buf)
        return; /* no report line is that long */
    memcpy(buf, line, n);
    buf[n] = 0;
    faro_waitfor_line(h->g, buf);
}

void mpx_hang_feed(struct mpx_job *job, const char *p, size_t n)
{
    struct mpx_hang *h = job->hang;
    if (!h)
        return;
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t len = nl ? (size_t)(nl - p) : n;
        if (h->plen + len < sizeof h->partial) {
            memcpy(h->partial + h->plen, p, len);
            h->plen += len;
        } else {
            h->plen = sizeof h->partial; /* too long to be a report: dropped */
        }
        if (nl) {
            if (h->plen < sizeof h->partial)
                hang_line(h, h->partial, h->plen);
            h->plen = 0;
            len++;
        }
        p += len;
        n -= len;
    }
}

void mpx_hang_exited(struct mpx_job *job, int rank)
{
    if (job->hang && rank >= 0 && rank < job->np)
        faro_waitfor_state(job->hang->g, rank, FARO_WF_EXITED);
}

static void hang_start(struct mpx_job *job, enum hang_why why, long long now)
{
    struct mpx_hang *h = job->hang;
    h->why = why;
    h->until = now + HANG_COLLECT_MS;
    faro_waitfor_reset(h->g);
    mpx_signal_all(job, SIGUSR1);
}

void mpx_hang_ask(struct mpx_job *job, long long now)
{
    if (job->hang && job->hang->why == HANG_IDLE && !job->ending) {
        fprintf(stderr, "mpiexec: SIGUSR1: asking every rank what it waits for\n");
        hang_start(job, HANG_ASKED, now);
    }
}

int mpx_hang_timeout(struct mpx_job *job, long long now)
{
    struct mpx_hang *h = job->hang;
    if (!h || h->timeout_done)
        return 0;
    if (h->why == HANG_IDLE) {
        fprintf(stderr, "mpiexec: job timed out after %d seconds; asking every rank what it "
                "waits for before ending it\n", job->opts.timeout_s);
        hang_start(job, HANG_TIMEOUT, now);
    }
    h->why = HANG_TIMEOUT; /* a round under way ends the job when it is done */
    return 1;
}

/* The summary, through mpiexec's stderr queue (after the ranks' lines). */
static int hang_summary(struct mpx_job *job)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return 0;
    int dead = faro_waitfor_summary(job->hang->g, f);
    fclose(f);
    mpx_output(job, 2, text, len);
    free(text);
    return dead;
}

static void hang_end_round(struct mpx_job *job, long long now);

int mpx_hang_timed_out(struct mpx_job *job)
{
    struct mpx_hang *h = job->hang;
    if (!h || h->why != HANG_TIMEOUT || job->ending)
        return 0;
    hang_end_round(job, mpx_now_ms());
    return 1;
}

void mpx_hang_tick(struct mpx_job *job, long long now, long long *next)
{
    struct mpx_hang *h = job->hang;
    if (!h || job->ending)
        return;
    if (h->why == HANG_IDLE) {
        if (h->seconds && now >= h->quiet_until && faro_waitfor_complete(h->g))
            hang_start(job, HANG_BLOCKED, now); /* every running rank reported by itself */
        return;
    }
    if (!faro_waitfor_complete(h->g) && now < h->until) {
        if (*next < 0 || h->until < *next)
            *next = h->until;
        return;
    }
    hang_end_round(job, now);
}

/* The round's reports are in (or its time is up): the summary, and the end
 * of the job when the round was the timeout's or found a deadlock. */
static void hang_end_round(struct mpx_job *job, long long now)
{
    struct mpx_hang *h = job->hang;
    enum hang_why why = h->why;
    h->why = HANG_IDLE;
    int dead = hang_summary(job);
    if (why == HANG_BLOCKED && !dead && h->rounds < 6)
        h->rounds++;
    h->quiet_until = now + 1000LL * (h->seconds ? h->seconds : 1) * (1 << h->rounds);
    if (why == HANG_TIMEOUT) {
        h->timeout_done = 1;
        mpx_job_fail(job, MPX_EXIT_TIMEOUT, "mpiexec: job timed out after %d seconds; "
                     "ending it", job->opts.timeout_s);
    } else if (why == HANG_BLOCKED && dead && !mpx_subjobs_running(job)) {
        /* (with spawned jobs running, this job's ranks may wait for theirs,
         * which this graph does not see: the report is printed, no more) */
        mpx_job_fail(job, 1, "mpiexec: %d rank(s) deadlocked (the hang report above says "
                     "where); ending the job", dead);
    }
}
