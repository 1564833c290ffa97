/* die_busy (expected to FAIL): every rank exchanges messages with every
 * other rank without pause (eager and rendezvous sizes), and in the middle of
 * that traffic one rank (TEST_VICTIM, default the last) ends as TEST_HOW
 * says:
 *   signal   raise(SIGKILL)                  the job exits 137
 *   segv     raise(SIGSEGV)                  the job exits 139
 *   abort    MPI_Abort(MPI_COMM_WORLD, 7)    the job exits 7
 *   abort_self MPI_Abort(MPI_COMM_SELF, 7)   the job exits 7
 *   exit0    exit(0) without MPI_Finalize    the job exits 1
 * Its peers are mid-transfer with it and notice the loss of their
 * connections at once; the launcher must still blame the rank that ended
 * (naming it, its host and the signal or code), not a peer that reported
 * "lost contact", and exit with the code above. tests/launcher/culprit.sh
 * checks the codes and the words, over shm, tcp and across hosts. This
 * program never prints the word "rank" itself (so the runner's check that
 * the failing rank is named tests the launcher's message). */
#include "util.h"

#define ROUNDS_BEFORE 20

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "die_busy");
    tu_arm_alarm(0);
    tu_need_ranks(2);
    const char *how = getenv("TEST_HOW") ? getenv("TEST_HOW") : "signal";
    int victim = tu_env_int("TEST_VICTIM", tu_size - 1);
    int sizes[] = {8, 4096, 262144};
    size_t max = 262144;
    char *out = malloc(max), *in = malloc(max * (size_t)tu_size);
    MPI_Request *reqs = malloc(2 * (size_t)tu_size * sizeof *reqs);
    if (!out || !in || !reqs)
        tu_fail("out of memory");
    memset(out, tu_rank, max);
    for (int round = 0;; round++) {
        if (tu_rank == victim && round == ROUNDS_BEFORE) {
            fprintf(stderr, "die_busy: process %d ends now (%s)\n", (int)getpid(), how);
            fflush(stderr);
            if (!strcmp(how, "signal"))
                raise(SIGKILL);
            else if (!strcmp(how, "segv"))
                raise(SIGSEGV);
            else if (!strcmp(how, "abort"))
                MPI_Abort(MPI_COMM_WORLD, 7);
            else if (!strcmp(how, "abort_self"))
                MPI_Abort(MPI_COMM_SELF, 7);
            else if (!strcmp(how, "exit0"))
                exit(0);
            tu_fail("unknown TEST_HOW %s", how);
        }
        int size = sizes[round % 3], n = 0;
        for (int r = 0; r < tu_size; r++) {
            if (r == tu_rank)
                continue;
            TU_CHECK(MPI_Irecv(in + (size_t)r * max, size, MPI_BYTE, r, round, MPI_COMM_WORLD,
                               &reqs[n++]));
            TU_CHECK(MPI_Isend(out, size, MPI_BYTE, r, round, MPI_COMM_WORLD, &reqs[n++]));
        }
        TU_CHECK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
        if (round > 1000000)
            break;
    }
    MPI_Finalize();
    fprintf(stderr, "die_busy: the job went on after a process ended\n");
    return 0;
}
