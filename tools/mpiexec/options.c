/* mpiexec command line: Open MPI and MPICH spellings of the common options. */
#include "config.h"

#include "mpiexec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char opt_usage[] =
    "Usage: mpiexec [options] program [arguments...]\n"
    "       mpirun  [options] program [arguments...]\n"
    "\n"
    "Start N copies of program as the ranks of one Faro (or other PMI-1) job.\n"
    "\n"
    "Options:\n"
    "  -n N, -np N          number of ranks (default 1)\n"
    "  -x VAR               pass VAR from this environment to the ranks\n"
    "  -x VAR=VALUE         set VAR to VALUE in the ranks\n"
    "  -genv VAR VALUE      set VAR to VALUE in the ranks (also -env)\n"
    "  -l, --tag-output     prefix every output line with \"[rank] \"\n"
    "  --timeout SECONDS    end the job after SECONDS (exit code 124);\n"
    "                       default: $MPIEXEC_TIMEOUT, or no limit\n"
    "  --exec-prefix CMD    run every rank as CMD program args, e.g. 'valgrind -q'\n"
    "                       or 'ip netns exec NS'; CMD must keep the environment\n"
    "                       and open file descriptors\n"
    "  -v, --verbose        report each rank's start and end\n"
    "\n"
    "Affinity (the library binds each rank at MPI_Init; see faro-affinity(7)):\n"
    "  --map-by POLICY      core|socket|numa|l3cache|nic|cpu-list:LIST, optionally\n"
    "                       followed by :span or :pack (sets FARO_MAP_BY)\n"
    "  --bind-to LEVEL      none|hwthread|core|l3cache|socket|numa (FARO_BIND_TO);\n"
    "                       default: core when the ranks fit the cores, else none\n"
    "  --cpus-per-rank N    N cores per rank (FARO_CPUS_PER_RANK); also sets\n"
    "                       OMP_NUM_THREADS=N and OMP_PLACES=cores unless set\n"
    "  --report-bindings    each rank prints where it is bound (FARO_REPORT_BINDINGS)\n"
    "  --topology SPEC      map on an hwloc XML file or synthetic string instead of\n"
    "                       this machine (FARO_TOPOLOGY)\n"
    "  --dry-run            print the placement the ranks would get (faro_info --map)\n"
    "                       and start nothing; no program needed\n"
    "  --oversubscribe, --allow-run-as-root\n"
    "                       accepted for Open MPI scripts; no effect\n"
    "  -h, --help           show this help\n"
    "  -V, --version        show the version\n"
    "  --                   end of options\n"
    "\n"
    "Exit code: 0 when every rank succeeded; else the exit code of the first rank\n"
    "that failed (128+N when killed by signal N, 1 when it exited without\n"
    "MPI_Finalize), the code given to MPI_Abort, 124 on timeout, 127 when the\n"
    "program cannot be found, 2 for a usage error. See mpiexec(1).\n";

static const char opt_valid[] =
    "-n, -np, -x, -genv, -env, -l, --tag-output, --timeout, --exec-prefix, -v, "
    "--verbose, --map-by, --bind-to, --cpus-per-rank, --report-bindings, --topology, "
    "--dry-run, --oversubscribe, --allow-run-as-root, -h, --help, -V, --version, --";

/* Parse a whole decimal number in [min, max]. */
static int opt_int(const char *s, int min, int max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

static int opt_valid_name(const char *s, size_t len)
{
    if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

static int opt_add_env(struct mpx_opts *o, const char *name, size_t namelen, const char *val)
{
    if (!opt_valid_name(name, namelen)) {
        fprintf(stderr, "mpiexec: '%.*s' is not a valid environment variable name "
                "(letters, digits and '_', not starting with a digit)\n", (int)namelen, name);
        return -1;
    }
    char **n = realloc(o->env, (o->nenv + 1) * sizeof *n);
    if (!n)
        return -1;
    o->env = n;
    size_t len = namelen + 1 + strlen(val) + 1;
    if (!(o->env[o->nenv] = malloc(len)))
        return -1;
    snprintf(o->env[o->nenv], len, "%.*s=%s", (int)namelen, name, val);
    o->nenv++;
    return 0;
}

/* Split CMD at blanks into a NULL-terminated argv (no quoting: keep it simple). */
static char **opt_split(const char *cmd)
{
    size_t n = 0, cap = 4;
    char **v = malloc(cap * sizeof *v);
    char *copy = strdup(cmd), *save = NULL;
    if (!v || !copy) {
        free(v);
        free(copy);
        return NULL;
    }
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n + 2 > cap) {
            char **nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[n++] = strdup(t);
    }
    v[n] = NULL;
    free(copy);
    if (n == 0) {
        free(v);
        return NULL;
    }
    return v;
}

static int opt_is(const char *a, const char *x, const char *y)
{
    return strcmp(a, x) == 0 || (y && strcmp(a, y) == 0);
}

int mpx_opts_parse(int argc, char **argv, struct mpx_opts *o, int *done)
{
    memset(o, 0, sizeof *o);
    o->np = 1;
    *done = 0;

    const char *t = getenv("MPIEXEC_TIMEOUT");
    if (t && *t && opt_int(t, 0, INT_MAX, &o->timeout_s) < 0) {
        fprintf(stderr, "mpiexec: MPIEXEC_TIMEOUT='%s' is not a number of seconds "
                "(0 or more; 0 means no limit)\n", t);
        return MPX_EXIT_USAGE;
    }

    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-')
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        /* Options that take one value. */
        int takes = opt_is(a, "-n", "-np") || opt_is(a, "--np", "--n") || opt_is(a, "-x", NULL) ||
                    opt_is(a, "--timeout", "-timeout") || opt_is(a, "--exec-prefix", NULL) ||
                    opt_is(a, "--map-by", "-map-by") || opt_is(a, "--bind-to", "-bind-to") ||
                    opt_is(a, "--cpus-per-rank", "-cpus-per-rank") ||
                    opt_is(a, "--topology", "-topology");
        int takes2 = opt_is(a, "-genv", "--genv") || opt_is(a, "-env", "--env");
        if ((takes && i + 1 >= argc) || (takes2 && i + 2 >= argc)) {
            fprintf(stderr, "mpiexec: option %s needs %s\n", a,
                    takes2 ? "two values: VAR VALUE" : "a value");
            return MPX_EXIT_USAGE;
        }
        if (opt_is(a, "-n", "-np") || opt_is(a, "--np", "--n")) {
            if (opt_int(argv[++i], 1, MPX_MAX_NP, &o->np) < 0) {
                fprintf(stderr, "mpiexec: %s '%s': the number of ranks must be an integer "
                        "from 1 to %d\n", a, argv[i], MPX_MAX_NP);
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "-x", NULL)) {
            const char *v = argv[++i], *eq = strchr(v, '=');
            if (eq) {
                if (opt_add_env(o, v, (size_t)(eq - v), eq + 1) < 0)
                    return MPX_EXIT_USAGE;
            } else if (!getenv(v)) {
                fprintf(stderr, "mpiexec: warning: -x %s: %s is not set here, so there is "
                        "nothing to pass (use -x %s=VALUE to set it)\n", v, v, v);
            } else if (opt_add_env(o, v, strlen(v), getenv(v)) < 0) {
                return MPX_EXIT_USAGE;
            }
        } else if (takes2) {
            if (opt_add_env(o, argv[i + 1], strlen(argv[i + 1]), argv[i + 2]) < 0)
                return MPX_EXIT_USAGE;
            i += 2;
        } else if (opt_is(a, "--timeout", "-timeout")) {
            if (opt_int(argv[++i], 0, INT_MAX, &o->timeout_s) < 0) {
                fprintf(stderr, "mpiexec: --timeout '%s': expected a number of seconds "
                        "(0 or more; 0 means no limit)\n", argv[i]);
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "--exec-prefix", NULL)) {
            for (char **p = o->prefix; p && *p; p++)
                free(*p);
            free(o->prefix);
            if (!(o->prefix = opt_split(argv[++i]))) {
                fprintf(stderr, "mpiexec: --exec-prefix needs a command, e.g. "
                        "--exec-prefix 'valgrind -q'\n");
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "--map-by", "-map-by")) {
            o->map_by = argv[++i];
        } else if (opt_is(a, "--bind-to", "-bind-to")) {
            o->bind_to = argv[++i];
        } else if (opt_is(a, "--topology", "-topology")) {
            o->topology = argv[++i];
        } else if (opt_is(a, "--cpus-per-rank", "-cpus-per-rank")) {
            /* Checked here too: it becomes OMP_NUM_THREADS as given. */
            int n;
            if (opt_int(argv[++i], 1, 1 << 20, &n) < 0) {
                fprintf(stderr, "mpiexec: --cpus-per-rank '%s': expected a whole number of "
                        "cores, 1 or more\n", argv[i]);
                return MPX_EXIT_USAGE;
            }
            o->cpus_per_rank = argv[i];
        } else if (opt_is(a, "--report-bindings", "-report-bindings")) {
            o->report_bindings = 1;
        } else if (opt_is(a, "--dry-run", "-dry-run")) {
            o->dry_run = 1;
        } else if (opt_is(a, "-l", "--tag-output") || opt_is(a, "-tag-output", "-prepend-rank")) {
            o->tag_output = 1;
        } else if (opt_is(a, "-v", "--verbose")) {
            o->verbose++;
        } else if (opt_is(a, "--oversubscribe", "--allow-run-as-root") ||
                   opt_is(a, "-oversubscribe", "-allow-run-as-root")) {
            /* Faro never refuses these; accepted so Open MPI command lines work. */
        } else if (opt_is(a, "-h", "--help") || opt_is(a, "-help", NULL)) {
            fputs(opt_usage, stdout);
            *done = 1;
            return 0;
        } else if (opt_is(a, "-V", "--version") || opt_is(a, "-version", NULL)) {
            printf("mpiexec (Faro) %s\n", PACKAGE_VERSION);
            *done = 1;
            return 0;
        } else {
            fprintf(stderr, "mpiexec: unknown option '%s'\nValid options: %s\n"
                    "Run 'mpiexec --help' for details; put '--' before a program whose "
                    "name starts with '-'.\n", a, opt_valid);
            return MPX_EXIT_USAGE;
        }
    }
    if (i >= argc && o->dry_run)
        return 0; /* the placement needs no program */
    if (i >= argc) {
        fprintf(stderr, "mpiexec: no program given\n%s", opt_usage);
        return MPX_EXIT_USAGE;
    }
    o->argv = argv + i;
    return 0;
}

void mpx_opts_free(struct mpx_opts *o)
{
    for (size_t i = 0; i < o->nenv; i++)
        free(o->env[i]);
    free(o->env);
    for (char **p = o->prefix; p && *p; p++)
        free(*p);
    free(o->prefix);
}
