/*
 * The wait-for graph of a hung job, from its ranks' hang reports (the
 * "faro: rank R: waiting: ..." lines of faro-debug(7)), for mpiexec's
 * --hang-report and the faro-hangdoc filter. Standalone C (no MPI, no
 * library state), so a launcher links it as it is.
 *
 * Use: faro_waitfor_new(nranks); give it every line the ranks write to
 * stderr (faro_waitfor_line takes the report lines and ignores the rest; a
 * rank's new report replaces its old one, a "resumed" line clears it); tell
 * it what the launcher knows about ranks that cannot report
 * (faro_waitfor_state: exited, or waiting in MPI_Finalize's barrier); when
 * every running rank has ended its report (faro_waitfor_complete) or a
 * deadline passed, faro_waitfor_summary prints who waits for whom and the
 * deadlock, if there is one:
 *
 *   hang report: 2 of 2 ranks blocked in MPI
 *     rank 0 waits for rank 1 in MPI_Recv (receive, tag 5 on MPI_COMM_WORLD)
 *     rank 1 waits for rank 0 in MPI_Recv (receive, tag 5 on MPI_COMM_WORLD)
 *   deadlock: rank 0 -> rank 1 -> rank 0
 *
 * The model. A rank's blocked calls are AND nodes over their requests
 * (Waitall needs each), a Waitany/Waitsome or a receive from MPI_ANY_SOURCE
 * an OR over its possible peers. A wait on a peer can still be met while the
 * peer runs (it may yet send), or when the peer waits for the matching
 * operation (a send to us with the tag we receive: the message is in
 * flight); it cannot when the peer is blocked on something else, exited, or
 * is in MPI_Finalize. A rank that has polled (MPI_Test, MPI_Iprobe...) for
 * the same thing long and in vain ("CALL (polling)" lines) counts as blocked
 * in that call. The deadlocked ranks are the largest set of blocked
 * ranks none of which can go on (a fixed point), and the summary prints one
 * cycle through them.
 */
#ifndef FARO_TOOLS_WAITFOR_H
#define FARO_TOOLS_WAITFOR_H

#include <stdio.h>

struct faro_waitfor;

enum faro_waitfor_state {
    FARO_WF_RUNNING,    /* started, not known to be anywhere special */
    FARO_WF_EXITED,     /* gone: it will send nothing */
    FARO_WF_FINALIZING, /* waiting in MPI_Finalize's barrier: it will send nothing */
};

/* A graph for ranks 0..nranks-1; NULL when out of memory. */
struct faro_waitfor *faro_waitfor_new(int nranks);
void faro_waitfor_free(struct faro_waitfor *g);

/* One line of a rank's stderr (a trailing newline is fine; a prefix such as
 * mpiexec's "[1] " before "faro: rank" too). Returns 1 when it was a report
 * line and was taken, 0 when it is not one, -1 when it looks like one but
 * does not parse (it is then ignored). */
int faro_waitfor_line(struct faro_waitfor *g, const char *line);

void faro_waitfor_state(struct faro_waitfor *g, int rank, enum faro_waitfor_state st);

/* 1 when every running rank has ended a report since the last call of
 * faro_waitfor_reset (exited and finalizing ranks are not waited for). */
int faro_waitfor_complete(const struct faro_waitfor *g);
/* Forget the reports (not the states), before asking for new ones. */
void faro_waitfor_reset(struct faro_waitfor *g);

/* Print the summary; returns the number of deadlocked ranks (0: none). */
int faro_waitfor_summary(struct faro_waitfor *g, FILE *out);

#endif
