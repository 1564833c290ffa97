/* Prints, after MPI_Init, the cpus this rank may run on as the kernel sees
 * them (sched_getaffinity), so that tests/launcher/affinity.sh can compare
 * them with the library's --report-bindings line:
 *   affinity_print rank R cpus LIST      (LIST like 0-3,8)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_ISSET */
#endif
#include "util.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        perror("sched_getaffinity");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char list[4096] = "";
    size_t off = 0;
    for (int c = 0; c < CPU_SETSIZE;) {
        if (!CPU_ISSET(c, &set)) {
            c++;
            continue;
        }
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
            e++;
        off += (size_t)snprintf(list + off, sizeof list - off, off ? ",%d" : "%d", c);
        if (e > c)
            off += (size_t)snprintf(list + off, sizeof list - off, "-%d", e);
        c = e + 1;
    }
    printf("affinity_print rank %d cpus %s\n", rank, list);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
