/* buffer_reuse: a buffer that is given back to the system and taken again at
 * the same address carries its new data. Transports that register memory for
 * RDMA keep registrations cached after a transfer; one that survived the
 * unmapping of its memory would send (or receive into) the old pages.
 *
 * Rank 0 sends large messages (rendezvous at every transport's default
 * limits) from buffers it frees and allocates again (malloc/free, and
 * munmap/mmap at one fixed address), filled with a new pattern every round;
 * rank 1 receives into buffers it recycles the same way and checks every
 * byte. Then the roles swap, so the receive side (RDMA write, RPUT) is
 * covered too. Ranks beyond 1 idle. TEST_ROUNDS sets the rounds (default 20).
 * On providers that do not pin memory (tcp, shm) a stale registration does
 * not show; tests/unit/test_rcache proves the invalidation itself. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "util.h"

#include <sys/mman.h>

#define LEN (4u << 20)

/* Memory at `at` exactly (NULL: anywhere); NULL when that address is taken. */
static unsigned char *map_at(void *at)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_FIXED_NOREPLACE
    if (at)
        flags |= MAP_FIXED_NOREPLACE;
#endif
    void *p = mmap(at, LEN, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (at && p != at) {
        munmap(p, LEN);
        return NULL;
    }
    return p;
}

/* A fresh buffer for round `round`: malloc'd on even rounds, mapped at the
 * address of the last mapping on odd ones. */
static unsigned char *take(int round, void **fixed)
{
    if (round % 2 == 0)
        return tu_malloc(LEN);
    unsigned char *p = map_at(*fixed);
    if (!p) /* the address was taken meanwhile: anywhere will do */
        p = map_at(NULL);
    if (!p)
        tu_fail("mmap of %u bytes failed", LEN);
    *fixed = p;
    return p;
}

static void give_back(int round, unsigned char *p)
{
    if (round % 2 == 0)
        free(p);
    else
        munmap(p, LEN);
}

static void run(int sender, int peer, int rounds, int phase)
{
    void *fixed = NULL;
    int same = 0;
    uintptr_t last[2] = {0, 0};
    for (int round = 0; round < rounds; round++) {
        unsigned char *buf = take(round, &fixed);
        same += (uintptr_t)buf == last[round % 2];
        last[round % 2] = (uintptr_t)buf;
        unsigned seed = (unsigned)(1000 * phase + round + 1);
        int tag = 100 * phase + round;
        if (sender) {
            tu_fill(buf, LEN, seed);
            TU_CHECK(MPI_Send(buf, (int)LEN, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
        } else {
            memset(buf, 0x5a, LEN);
            TU_CHECK(MPI_Recv(buf, (int)LEN, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
            tu_check_pattern(buf, LEN, seed, "round %d (phase %d): %u bytes into a reused "
                             "buffer", round, phase, LEN);
        }
        give_back(round, buf);
        tu_barrier(); /* the next round's buffer is new on both sides */
    }
    if (tu_rank == 0 && phase == 0)
        printf("buffer_reuse: %d of %d buffers came back at an address used before\n", same,
               rounds);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "buffer_reuse");
    tu_arm_alarm(120);
    tu_need_ranks(2);
    int rounds = tu_env_int("TEST_ROUNDS", 20);
    if (tu_rank < 2) {
        run(tu_rank == 0, 1 - tu_rank, rounds, 0); /* 0 sends, 1 receives */
        run(tu_rank == 1, 1 - tu_rank, rounds, 1); /* and the other way */
    } else {
        for (int i = 0; i < 2 * rounds; i++)
            tu_barrier();
    }
    tu_finish();
    return 0;
}
