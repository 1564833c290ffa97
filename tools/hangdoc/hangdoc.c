/*
 * faro-hangdoc: the wait-for summary of a hung job from its ranks' hang
 * reports (faro-debug(7)), for jobs not started by Faro's mpiexec (Hydra,
 * Slurm) or for a saved log:
 *
 *     mpiexec -n 4 ./prog 2> err.log     # then SIGUSR1 to the ranks
 *     faro-hangdoc -n 4 err.log
 *
 * Reads the files (standard input without any), keeps the last report of
 * each rank and prints the summary (waitfor.h). Exit status: 0 no deadlock,
 * 1 a deadlock was found, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waitfor.h"

static int feed(struct faro_waitfor *g, FILE *f)
{
    char line[4096];
    int taken = 0;
    while (fgets(line, sizeof line, f))
        taken += faro_waitfor_line(g, line) == 1;
    return taken;
}

int main(int argc, char **argv)
{
    int n = -1, first = 1;
    if (argc > 2 && !strcmp(argv[1], "-n")) {
        n = atoi(argv[2]);
        first = 3;
    }
    if (n <= 0) {
        fprintf(stderr, "usage: faro-hangdoc -n NRANKS [FILE...]  (reads the ranks' stderr: "
                        "the 'faro: rank R: waiting:' lines of their hang reports)\n");
        return 2;
    }
    struct faro_waitfor *g = faro_waitfor_new(n);
    if (!g) {
        fprintf(stderr, "faro-hangdoc: out of memory\n");
        return 2;
    }
    int taken = 0;
    if (first == argc)
        taken = feed(g, stdin);
    for (int i = first; i < argc; i++) {
        FILE *f = fopen(argv[i], "r");
        if (!f) {
            perror(argv[i]);
            faro_waitfor_free(g);
            return 2;
        }
        taken += feed(g, f);
        fclose(f);
    }
    if (!taken)
        fprintf(stderr, "faro-hangdoc: no hang report lines in the input (send the ranks "
                        "SIGUSR1, or run with FARO_HANG_REPORT=SECONDS)\n");
    int dead = faro_waitfor_summary(g, stdout);
    faro_waitfor_free(g);
    return dead ? 1 : 0;
}
