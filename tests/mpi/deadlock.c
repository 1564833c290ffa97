/*
 * deadlock: programs that hang on purpose, one per TEST_CASE, for the hang
 * report (hang-report.sh). Each rank prints "deadlock: rank R pid P" once it
 * is about to block, so the script can signal it; then it never returns.
 *
 *   recv_recv   both ranks MPI_Recv from the other, tag 5
 *   coll        rank 0 in MPI_Barrier, the others in MPI_Recv from rank 0
 *               (a collective one rank never calls)
 *   waitall     rank 0 waits in MPI_Waitall for an MPI_Irecv from 1 (tag 3)
 *               and a 1 MiB MPI_Isend to 1 (tag 4); rank 1 waits in
 *               MPI_Recv from 0 with tag 9, which nobody sends
 *   ibarrier    rank 0 waits in MPI_Wait on an MPI_Ibarrier, rank 1 in
 *               MPI_Probe from rank 0
 *   test_test   both ranks poll MPI_Test on an MPI_Irecv from the other (tag 6)
 *   poll_mix    rank 0 polls MPI_Testall on two MPI_Irecv from rank 1 (tags 3,
 *               4), rank 1 polls MPI_Iprobe from rank 0 (tag 8), and again
 *               MPI_Testany / MPI_Testsome / MPI_Improbe in turn, so no call
 *               is polled without the others
 * Ranks beyond those named wait in MPI_Recv from any rank (tag 99).
 *   threads     (MPI_THREAD_MULTIPLE) two threads of rank 0 each in MPI_Recv
 *               from rank 1 (tags 10, 11); rank 1 in MPI_Recv from rank 0
 *   signal_threads  no deadlock: (MPI_THREAD_MULTIPLE) two threads of rank 0
 *               wait for rank 1 (tags 10, 11), which sends after 2 s; meanwhile
 *               rank 0's main thread sends its own process SIGUSR1, so the
 *               handler runs in one thread while another polls and reports
 *   late        no deadlock: rank 1 computes for TEST_SLEEP seconds before
 *               it sends to rank 0 (tag 2), which waits in MPI_Recv
 *   late_poll   the same, rank 0 polling MPI_Test on an MPI_Irecv instead
 *   poll_busy   no deadlock: for TEST_SLEEP seconds rank 0 polls MPI_Iprobe
 *               for a stop message (tag 1) that never comes, and sends rank 1
 *               a message every 2 ms (tag 2), which rank 1 polls for: a rank
 *               that polls in vain while its messages flow is not stuck
 */
#include "util.h"

#include <pthread.h>

static void ready(void)
{
    printf("deadlock: rank %d pid %ld\n", tu_rank, (long)getpid());
    fflush(stdout);
}

static void *recv_thread(void *arg)
{
    int x;
    MPI_Recv(&x, 1, MPI_INT, 1, 10 + (int)(long)arg, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *c = getenv("TEST_CASE");
    if (c && (!strcmp(c, "threads") || !strcmp(c, "signal_threads")))
        tu_init_multiple(&argc, &argv, "deadlock", 0);
    else
        tu_init(&argc, &argv, "deadlock");
    if (!c || tu_size < 2)
        tu_fail("set TEST_CASE and run on 2 ranks or more");
    int me = tu_rank, x = 0;
    static char big[1 << 20];
    MPI_Request reqs[2];
    ready();
    if (me > 1 && strcmp(c, "coll")) {
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(c, "recv_recv")) {
        MPI_Recv(&x, 1, MPI_INT, 1 - me, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(c, "coll")) {
        if (me == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        else
            MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(c, "waitall")) {
        if (me == 0) {
            MPI_Irecv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &reqs[0]);
            MPI_Isend(big, sizeof big, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &reqs[1]);
            MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (!strcmp(c, "ibarrier")) {
        if (me == 0) {
            MPI_Ibarrier(MPI_COMM_WORLD, &reqs[0]);
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        } else {
            MPI_Probe(0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (!strcmp(c, "test_test")) {
        int done = 0;
        MPI_Irecv(&x, 1, MPI_INT, 1 - me, 6, MPI_COMM_WORLD, &reqs[0]);
        while (!done)
            MPI_Test(&reqs[0], &done, MPI_STATUS_IGNORE);
    } else if (!strcmp(c, "poll_mix")) {
        int done = 0, y = 0, idx, n, idxs[2];
        MPI_Message msg;
        if (me == 0) {
            MPI_Irecv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &reqs[0]);
            MPI_Irecv(&y, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &reqs[1]);
        }
        for (unsigned long i = 0; !done; i++) {
            if (me == 0 && i % 3 == 0)
                MPI_Testall(2, reqs, &done, MPI_STATUSES_IGNORE);
            else if (me == 0 && i % 3 == 1)
                MPI_Testany(2, reqs, &idx, &done, MPI_STATUS_IGNORE);
            else if (me == 0)
                MPI_Testsome(2, reqs, &n, idxs, MPI_STATUSES_IGNORE), done = n > 0;
            else if (i % 2)
                MPI_Iprobe(0, 8, MPI_COMM_WORLD, &done, MPI_STATUS_IGNORE);
            else
                MPI_Improbe(0, 8, MPI_COMM_WORLD, &done, &msg, MPI_STATUS_IGNORE);
        }
    } else if (!strcmp(c, "threads")) {
        if (me == 0) {
            pthread_t th[2];
            for (long t = 0; t < 2; t++)
                pthread_create(&th[t], NULL, recv_thread, (void *)t);
            for (int t = 0; t < 2; t++)
                pthread_join(th[t], NULL);
        } else {
            MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (!strcmp(c, "signal_threads")) {
        if (me == 0) {
            pthread_t th[2];
            for (long t = 0; t < 2; t++)
                pthread_create(&th[t], NULL, recv_thread, (void *)t);
            sleep(1);
            kill(getpid(), SIGUSR1);
            for (int t = 0; t < 2; t++)
                pthread_join(th[t], NULL);
        } else {
            sleep(2);
            for (int t = 10; t < 12; t++)
                MPI_Send(&x, 1, MPI_INT, 0, t, MPI_COMM_WORLD);
        }
        tu_finish();
        return 0;
    } else if (!strcmp(c, "poll_busy")) {
        double end = MPI_Wtime() + tu_env_int("TEST_SLEEP", 3);
        int stop = 0, go = 1, n = 0;
        while (go) {
            if (me == 0) { /* polls in vain for 2 ms, then sends one message */
                for (double t = MPI_Wtime(); MPI_Wtime() - t < 0.002;)
                    MPI_Iprobe(1, 1, MPI_COMM_WORLD, &stop, MPI_STATUS_IGNORE);
                go = MPI_Wtime() < end;
                MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
            } else { /* polls for the stop message and for the next one */
                int flag = 0;
                MPI_Iprobe(0, 1, MPI_COMM_WORLD, &stop, MPI_STATUS_IGNORE);
                MPI_Iprobe(0, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                if (flag && ++n)
                    MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        tu_finish();
        return 0;
    } else if (!strcmp(c, "late") || !strcmp(c, "late_poll")) {
        if (me == 0 && !strcmp(c, "late")) {
            MPI_Recv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 0) {
            int done = 0;
            MPI_Irecv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &reqs[0]);
            while (!done)
                MPI_Test(&reqs[0], &done, MPI_STATUS_IGNORE);
        } else {
            sleep((unsigned)tu_env_int("TEST_SLEEP", 3));
            MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
        tu_finish();
        return 0;
    } else {
        tu_fail("unknown TEST_CASE %s", c);
    }
    tu_fail("got through the deadlock (%s)", c);
}
