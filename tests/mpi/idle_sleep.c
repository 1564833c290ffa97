/*
 * idle_sleep: a rank blocked in MPI_Recv for seconds, with nothing to
 * receive, sleeps instead of burning its core, when the library is told to
 * wait politely (Faro: FARO_WAIT_POLICY=yield, the testlist sets it).
 *
 * Rank 0 sleeps TEST_IDLE_MS (default 2000) outside MPI, then sends 8 bytes;
 * rank 1 waits in MPI_Recv all that time. Rank 1's CPU time (user + system,
 * getrusage) over the receive must stay below TEST_IDLE_CPU_PCT percent
 * (default 20) of its wall time: a rank that polls, or yields in a loop, uses
 * close to 100% of a core (less only when other processes take the core).
 */
#include "util.h"

#include <sys/resource.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "idle_sleep");
    if (tu_size != 2)
        tu_fail("needs exactly 2 ranks, got %d", tu_size);
    int idle_ms = tu_env_int("TEST_IDLE_MS", 2000);
    int max_pct = tu_env_int("TEST_IDLE_CPU_PCT", 20);
    uint64_t v = 0x5eed5eedull;

    tu_barrier();
    if (tu_rank == 0) {
        struct timespec d = { idle_ms / 1000, (long)(idle_ms % 1000) * 1000000L };
        while (nanosleep(&d, &d) != 0)
            ;
        TU_CHECK(MPI_Send(&v, 1, MPI_UINT64_T, 1, 5, MPI_COMM_WORLD));
    } else {
        uint64_t got = 0;
        double w0 = now_s(), c0 = cpu_s();
        TU_CHECK(MPI_Recv(&got, 1, MPI_UINT64_T, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        double wall = now_s() - w0, cpu = cpu_s() - c0;
        if (got != v)
            tu_fail("received 0x%llx, expected 0x%llx", (unsigned long long)got,
                    (unsigned long long)v);
        if (wall < idle_ms * 0.9e-3)
            tu_fail("MPI_Recv returned after %.3f s, before the message was sent (%d ms)",
                    wall, idle_ms);
        printf("idle_sleep: rank 1 blocked %.3f s in MPI_Recv, used %.3f s of CPU (%.1f%%)\n",
               wall, cpu, 100.0 * cpu / wall);
        if (cpu > wall * max_pct / 100.0)
            tu_fail("blocked %.3f s in MPI_Recv and used %.3f s of CPU (%.0f%%, at most %d%% "
                    "allowed): the rank did not sleep while it waited",
                    wall, cpu, 100.0 * cpu / wall, max_pct);
    }
    tu_finish();
    return 0;
}
