/*
 * mpiexec's affinity options. mpiexec does not bind anything: the library
 * binds each rank at MPI_Init from FARO_MAP_BY, FARO_BIND_TO,
 * FARO_CPUS_PER_RANK and FARO_TOPOLOGY, so the same policy works under other
 * launchers. mpiexec only turns its options into those variables (an option
 * wins over the same variable in the environment: it is the more explicit)
 * and leaves checking the values to the library, whose MPI_Init fails with
 * the message. --dry-run asks faro_info --map, which runs the same mapping
 * code, what the ranks would get.
 */
#include "config.h"

#include "mpiexec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void policy_export(const struct mpx_opts *o)
{
    if (o->map_by)
        setenv("FARO_MAP_BY", o->map_by, 1);
    if (o->bind_to)
        setenv("FARO_BIND_TO", o->bind_to, 1);
    if (o->topology)
        setenv("FARO_TOPOLOGY", o->topology, 1);
    if (o->cpus_per_rank)
        setenv("FARO_CPUS_PER_RANK", o->cpus_per_rank, 1);
    if (o->report_bindings)
        setenv("FARO_REPORT_BINDINGS", "1", 1);
}

void mpx_policy_setenv(const struct mpx_opts *o)
{
    policy_export(o);
    /* A hybrid rank's threads fill the cores it is given, one per core,
     * unless the user chose otherwise. */
    if (o->cpus_per_rank) {
        setenv("OMP_NUM_THREADS", o->cpus_per_rank, 0);
        setenv("OMP_PLACES", "cores", 0);
    }
}

void mpx_self_dir(char *dir, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    dir[0] = 0;
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            snprintf(dir, len, "%s", self);
        }
    }
}

/* faro_info is installed next to mpiexec, and built next to it in the build
 * tree; fall back to PATH. */
static void policy_find_info(char *path, size_t len)
{
    char dir[PATH_MAX];
    mpx_self_dir(dir, sizeof dir);
    if (dir[0]) {
        snprintf(path, len, "%s/faro_info", dir);
        if (access(path, X_OK) == 0)
            return;
    }
    snprintf(path, len, "faro_info");
}

int mpx_dry_run(const struct mpx_opts *o, int np)
{
    for (size_t i = 0; i < o->nenv; i++)
        putenv(o->env[i]);
    for (size_t i = 0; o->napps && i < o->apps[0].nenv; i++) /* the first program's */
        putenv(o->apps[0].env[i]);
    policy_export(o);
    char info[PATH_MAX + 16], nps[16];
    policy_find_info(info, sizeof info);
    snprintf(nps, sizeof nps, "%d", np);
    fflush(stdout);
    char *argv[] = { info, "--map", "-n", nps, NULL };
    execvp(info, argv);
    fprintf(stderr, "mpiexec: --dry-run: cannot run %s: %s (it prints the placement; it is "
            "installed next to mpiexec)\n", info, strerror(errno));
    return errno == ENOENT ? MPX_EXIT_NOTFOUND : MPX_EXIT_NOEXEC;
}
