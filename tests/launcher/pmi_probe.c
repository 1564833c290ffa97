/*
 * A rank for the launcher tests: talks PMI through base/pmi.c (not the whole
 * library; FARO_PMI picks the protocol as in MPI_Init) and then behaves as
 * the test asks.
 *
 *   pmi_probe kvs                 put, barrier, get every rank's key; check them
 *   pmi_probe barrier R SECONDS   rank R sleeps, then joins a barrier; the
 *                                 others check that theirs waited for it
 *   pmi_probe nodemap             print the manager's node of every rank
 *   pmi_probe exit R CODE         rank R exits with CODE; the others wait in a barrier
 *   pmi_probe signal R SIG        rank R raises SIG; the others wait in a barrier
 *   pmi_probe nofinalize R        rank R exits 0 without finalize; the others wait
 *   pmi_probe abort R CODE        rank R calls faro_pmi_abort; the others wait
 *   pmi_probe lost R CODE L [MS]  rank R calls faro_pmi_abort_error naming rank L
 *                                 (as a rank that lost its connection to L does);
 *                                 rank L raises SIGKILL MS ms later (never when
 *                                 MS is absent); the others wait
 *   pmi_probe sleep SECONDS       every rank sleeps, then finalizes
 *   pmi_probe env VAR...          print "VAR=value" (or "VAR unset") per variable
 *   pmi_probe stdin               print how many bytes stdin held
 *   pmi_probe lines K             print K long lines, to check lines do not mix
 *   pmi_probe shm                 create /dev/shm/<kvsname>-probe-<rank>, print
 *                                 its path, and crash (exit 3) as a transport would
 *
 * The waiting ranks would block forever if mpiexec failed to end the job; the
 * test scripts run everything under timeout(1).
 */
#include "config.h"

#include "base/pmi.h"
#include "base/tunables.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct faro_pmi_info info;

static void probe_die(const char *what)
{
    fprintf(stderr, "pmi_probe: rank %d: %s\n", info.rank, what);
    exit(99);
}

static int probe_kvs(void)
{
    char key[64], val[128], want[128];
    snprintf(key, sizeof key, "probe-%d", info.rank);
    snprintf(val, sizeof val, "value of rank %d with spaces=and%%signs", info.rank);
    if (faro_pmi_put(key, val) < 0)
        probe_die("put failed");
    if (faro_pmi_barrier() < 0)
        probe_die("barrier failed");
    for (int r = 0; r < info.size; r++) {
        snprintf(key, sizeof key, "probe-%d", r);
        snprintf(want, sizeof want, "value of rank %d with spaces=and%%signs", r);
        if (faro_pmi_get_from(r, key, val, sizeof val) < 0 || strcmp(val, want) != 0)
            probe_die("get returned a wrong value");
    }
    if (faro_pmi_get_from(0, "no-such-key", val, sizeof val) == 0 ||
        faro_pmi_get("no-such-key", val, sizeof val) == 0)
        probe_die("get of a missing key succeeded");
    if (faro_pmi_barrier() < 0)
        probe_die("second barrier failed");
    printf("rank %d of %d: kvs ok (kvsname %s, keylen %d, vallen %d)\n", info.rank, info.size,
           info.kvsname, info.key_max, info.val_max);
    printf("rank %d: protocol %s\n", info.rank, info.protocol);
    return 0;
}

static double probe_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* A barrier is a barrier: no rank leaves it before the late one arrived. */
static void probe_barrier(int late, int seconds)
{
    if (faro_pmi_barrier() < 0) /* everyone started: the clock below is fair */
        probe_die("first barrier failed");
    double t0 = probe_now();
    if (info.rank == late)
        sleep((unsigned)seconds);
    if (faro_pmi_barrier() < 0)
        probe_die("barrier failed");
    double waited = probe_now() - t0;
    if (waited < 0.8 * seconds) {
        fprintf(stderr, "pmi_probe: rank %d: the barrier returned after %.2f s, before rank %d "
                "arrived (%d s late)\n", info.rank, waited, late, seconds);
        exit(99);
    }
    printf("rank %d: barrier ok (%s, waited %.1f s)\n", info.rank, info.protocol, waited);
}

static void probe_nodemap(void)
{
    int *node = calloc((size_t)info.size, sizeof *node);
    if (!node)
        probe_die("out of memory");
    if (faro_pmi_node_map(node) < 0) {
        printf("rank %d: nodemap none\n", info.rank);
    } else {
        printf("rank %d: nodemap", info.rank);
        for (int r = 0; r < info.size; r++)
            printf(" %d", node[r]);
        printf("\n");
    }
    free(node);
}

int main(int argc, char **argv)
{
    char err[512];
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: pmi_probe MODE ARGS... (modes: kvs barrier nodemap exit signal "
                        "nofinalize abort lost sleep env stdin lines shm appnum)\n");
        return 2;
    }
    if (faro_tunables_load(err, sizeof err) < 0) {
        fprintf(stderr, "pmi_probe: %s\n", err);
        return 98;
    }
    if (faro_pmi_init(&info, err, sizeof err) < 0) {
        fprintf(stderr, "pmi_probe: %s\n", err);
        return 98;
    }
    const char *mode = argv[1];
    int a1 = argc > 2 ? atoi(argv[2]) : 0, a2 = argc > 3 ? atoi(argv[3]) : 0;
    int me = info.rank == a1;

    if (strcmp(mode, "kvs") == 0) {
        probe_kvs();
    } else if (strcmp(mode, "barrier") == 0) {
        probe_barrier(a1, a2);
    } else if (strcmp(mode, "nodemap") == 0) {
        probe_nodemap();
    } else if (strcmp(mode, "exit") == 0 || strcmp(mode, "signal") == 0 ||
               strcmp(mode, "nofinalize") == 0 || strcmp(mode, "abort") == 0) {
        if (!me) {
            faro_pmi_barrier(); /* never completes: rank a1 does not join */
            probe_die("barrier completed without the failing rank");
        }
        if (mode[0] == 'e')
            exit(a2);
        if (mode[0] == 's')
            raise(a2);
        if (mode[0] == 'n')
            exit(0);
        faro_pmi_abort(a2, "probe gave up on purpose");
        probe_die("abort returned");
    } else if (strcmp(mode, "lost") == 0) {
        int lost = argc > 4 ? atoi(argv[4]) : 0, ms = argc > 5 ? atoi(argv[5]) : -1;
        if (me) {
            faro_pmi_abort_error(a2, "probe lost its peer on purpose", lost);
            probe_die("abort returned");
        }
        if (info.rank == lost && ms >= 0) {
            usleep((useconds_t)ms * 1000);
            raise(SIGKILL);
        }
        faro_pmi_barrier(); /* never completes: rank a1 does not join */
        probe_die("barrier completed without the failing rank");
    } else if (strcmp(mode, "sleep") == 0) {
        sleep((unsigned)a1);
    } else if (strcmp(mode, "appnum") == 0) {
        printf("rank %d of %d: appnum %d\n", info.rank, info.size, info.appnum);
    } else if (strcmp(mode, "env") == 0) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);
            if (v)
                printf("%s=%s\n", argv[i], v);
            else
                printf("%s unset\n", argv[i]);
        }
    } else if (strcmp(mode, "stdin") == 0) {
        char buf[4096];
        size_t total = 0;
        ssize_t n;
        while ((n = read(0, buf, sizeof buf)) > 0)
            total += (size_t)n;
        printf("stdin %zu bytes\n", total);
    } else if (strcmp(mode, "lines") == 0) {
        char line[3000];
        memset(line, 'a' + info.rank % 26, sizeof line - 1);
        line[sizeof line - 1] = 0;
        for (int i = 0; i < a1; i++)
            printf("%s\n", line);
    } else if (strcmp(mode, "shm") == 0) {
        char path[512];
        snprintf(path, sizeof path, "/dev/shm/%s-probe-%d", info.kvsname, info.rank);
        int fd = open(path, O_CREAT | O_WRONLY, 0600);
        if (fd < 0)
            probe_die("cannot create a file in /dev/shm");
        close(fd);
        printf("%s\n", path);
        faro_pmi_barrier(); /* every file exists before anyone crashes */
        exit(3);
    } else {
        fprintf(stderr, "pmi_probe: unknown mode %s\n", mode);
        return 2;
    }
    if (faro_pmi_finalize() < 0)
        probe_die("finalize failed");
    return 0;
}
