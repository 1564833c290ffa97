/*
 * icount: the 8-byte ping-pong whose instructions tests/perf/icount.sh counts
 * under callgrind (issue 17). Ranks 0 and 1 each do MPI_Send then MPI_Recv
 * (rank 1: MPI_Recv then MPI_Send), ITERS times, from one function each
 * (measured_send, measured_recv) so that the count of every call is known.
 *
 * A blocking receive that waits polls for as long as the message takes,
 * which depends on the machine's load, not on the library. So each message
 * is known to be in the receiver's transport before its MPI_Recv starts: the
 * sender bumps a counter in a file both ranks map (argv[1]) after its
 * MPI_Send returned, and the receiver waits for the counter outside MPI.
 * Every MPI_Recv then posts its receive, polls once, finds the message in
 * the ring and completes: the same instructions on any machine. (The
 * counter is not MPI; MPI has no way to wait without polling.)
 *
 * usage: mpiexec -n 2 tests/perf/icount SYNC_FILE [ITERS [WARMUP]]
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define TAG 7

static int rank;
static char sbuf[8], rbuf[8];
/* counters[r]: messages rank r has sent, each on a cache line of its own */
static _Atomic unsigned long *counters[2];

static void die(const char *what)
{
    fprintf(stderr, "icount: rank %d: FAIL: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void wait_for(int from, unsigned long n)
{
    while (atomic_load_explicit(counters[from], memory_order_acquire) < n)
        sched_yield();
}

/* noinline: callgrind attributes the calls below to these two functions,
 * apart from the warm-up's calls and from MPI_Init's and MPI_Finalize's. */
__attribute__((noinline)) static void measured_send(int peer)
{
    if (MPI_Send(sbuf, 8, MPI_BYTE, peer, TAG, MPI_COMM_WORLD) != MPI_SUCCESS)
        die("MPI_Send failed");
}

__attribute__((noinline)) static void measured_recv(int peer)
{
    if (MPI_Recv(rbuf, 8, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        die("MPI_Recv failed");
}

/* The warm-up's calls (the first ones connect and allocate), from the
 * caller's own body, so that they are never counted as measured ones. */
static void send_msg(int peer, int measured)
{
    if (measured)
        measured_send(peer);
    else if (MPI_Send(sbuf, 8, MPI_BYTE, peer, TAG, MPI_COMM_WORLD) != MPI_SUCCESS)
        die("MPI_Send failed");
}

static void recv_msg(int peer, int measured)
{
    if (measured)
        measured_recv(peer);
    else if (MPI_Recv(rbuf, 8, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
             MPI_SUCCESS)
        die("MPI_Recv failed");
}

/* One round trip; seq counts the messages each rank has sent so far. */
static void round_trip(unsigned long seq, int measured)
{
    int peer = 1 - rank;
    if (rank == 0) {
        sbuf[0] = (char)seq;
        send_msg(peer, measured);
        atomic_store_explicit(counters[0], seq + 1, memory_order_release);
        wait_for(1, seq + 1);
        recv_msg(peer, measured);
    } else {
        wait_for(0, seq + 1);
        recv_msg(peer, measured);
        sbuf[0] = rbuf[0];
        send_msg(peer, measured);
        atomic_store_explicit(counters[1], seq + 1, memory_order_release);
    }
    if (rbuf[0] != (char)seq && rank == 0)
        die("the echoed byte differs from the one sent");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc < 2)
        die("usage: mpiexec -n 2 icount SYNC_FILE [ITERS [WARMUP]]");
    long iters = argc > 2 ? atol(argv[2]) : 1000;
    long warmup = argc > 3 ? atol(argv[3]) : 50;
    int fd = open(argv[1], O_RDWR);
    if (fd < 0)
        die("cannot open the counter file");
    char *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        die("cannot map the counter file");
    close(fd);
    counters[0] = (_Atomic unsigned long *)(void *)map;
    counters[1] = (_Atomic unsigned long *)(void *)(map + 128);
    unsigned long seq = 0;
    for (long i = 0; i < warmup; i++)
        round_trip(seq++, 0);
    for (long i = 0; i < iters; i++)
        round_trip(seq++, 1);
    if (rank == 0)
        printf("icount: %ld measured round trips\n", iters);
    MPI_Finalize();
    return 0;
}
