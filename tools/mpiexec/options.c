/* mpiexec command line: Open MPI and MPICH (Hydra) spellings of the common
 * options. */
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
    "Start N copies of program as the ranks of one Faro (or other PMI-1) job, on this\n"
    "machine or on the hosts given.\n"
    "\n"
    "Options:\n"
    "  -n N, -np N          number of ranks (default: the slots of the hosts, else 1)\n"
    "  -x VAR               pass VAR from this environment to the ranks\n"
    "  -x VAR=VALUE         set VAR to VALUE in the ranks\n"
    "  -genv VAR VALUE      set VAR to VALUE in the ranks (also -env)\n"
    "  -envall              forward all of this environment to other hosts (default)\n"
    "  -envnone             forward none of it (-x, -genv and FARO_TCP_IF still go)\n"
    "  -envlist A,B,...     forward only these variables\n"
    "  -wdir DIR            the ranks' working directory (default: this one)\n"
    "  -l, --tag-output     prefix every output line with \"[rank] \"\n"
    "  --tag-host           prefix every output line with \"[rank@host] \"\n"
    "  -prepend-pattern P   prefix every output line with P (%r rank, %h host)\n"
    "  --timeout SECONDS    end the job after SECONDS (exit code 124);\n"
    "                       default: $MPIEXEC_TIMEOUT, or no limit\n"
    "  --exec-prefix CMD    run every rank as CMD program args, e.g. 'valgrind -q';\n"
    "                       CMD must keep the environment and open file descriptors\n"
    "  -v, --verbose        report each rank's and host's start and end, and the\n"
    "                       key-value exchange's messages and bytes\n"
    "  -usize N             MPI_UNIVERSE_SIZE, the processes MPI_Comm_spawn should\n"
    "                       expect room for (default: $MPIEXEC_UNIVERSE_SIZE, else\n"
    "                       the slots of the hosts; without hosts it is not set)\n"
    "\n"
    "Hosts (without them every rank runs here; inside a Slurm allocation the\n"
    "allocation's nodes and task counts are the default):\n"
    "  -hosts LIST          hosts, e.g. a,b or a:2,b:2 (also -host, --host, -H)\n"
    "  -f FILE              host file: 'host', 'host:N' or 'host slots=N' lines, '#'\n"
    "                       comments (also -hostfile, --hostfile, -machinefile)\n"
    "  -ppn N               N ranks per host (also -npernode, --map-by ppr:N:node)\n"
    "  --map-by slot|node   fill each host's slots in turn (default), or one rank per\n"
    "                       host round robin\n"
    "  -launcher NAME       how proxies start on the hosts: ssh (default), rsh, slurm\n"
    "                       (srun; the default in an allocation), fork (this machine)\n"
    "  -launcher-exec CMD   start them with CMD, called like ssh: CMD HOST COMMAND...\n"
    "  --tree-width N       each proxy starts at most N others (default 32)\n"
    "  --heartbeat SECONDS  a host silent this long, unacknowledged by TCP, is lost\n"
    "                       (default 1.5)\n"
    "  --proxy-path PATH    faro_proxy on the hosts (default: next to mpiexec)\n"
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
    "                       and, with hosts, the host of every rank and the commands\n"
    "                       that would start the proxies; start nothing\n"
    "  --oversubscribe, --allow-run-as-root\n"
    "                       accepted for Open MPI scripts; no effect\n"
    "  -h, --help           show this help\n"
    "  -V, --version        show the version\n"
    "  --                   end of options\n"
    "\n"
    "Exit code: 0 when every rank succeeded; else the exit code of the first rank\n"
    "that failed (128+N when killed by signal N, 1 when it exited without\n"
    "MPI_Finalize), the code given to MPI_Abort, 124 on timeout, 255 when a host\n"
    "was lost, 127 when the program cannot be found, 2 for a usage error. See\n"
    "mpiexec(1).\n";

static const char opt_valid[] =
    "-n, -np, -x, -genv, -env, -envall, -envnone, -envlist, -wdir, -l, --tag-output, "
    "--tag-host, -prepend-pattern, --timeout, --exec-prefix, -v, --verbose, -usize, -hosts, -host, "
    "-f, -hostfile, -machinefile, -ppn, -launcher, -launcher-exec, --tree-width, --heartbeat, "
    "--proxy-path, --map-by, --bind-to, --cpus-per-rank, --report-bindings, --topology, "
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
    char **n = realloc(o->env, (o->nenv + 2) * sizeof *n);
    if (!n)
        return -1;
    o->env = n;
    size_t len = namelen + 1 + strlen(val) + 1;
    if (!(o->env[o->nenv] = malloc(len)))
        return -1;
    snprintf(o->env[o->nenv], len, "%.*s=%s", (int)namelen, name, val);
    o->env[++o->nenv] = NULL; /* NULL-terminated, for the job description */
    return 0;
}

/* Split CMD at blanks into a NULL-terminated argv (no quoting: keep it simple). */
char **mpx_split(const char *cmd)
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

void mpx_argv_free(char **v)
{
    for (char **p = v; p && *p; p++)
        free(*p);
    free(v);
}

static int opt_is(const char *a, const char *x, const char *y)
{
    return strcmp(a, x) == 0 || (y && strcmp(a, y) == 0);
}

/* The values of the options that take one. */
static const char *const opt_one[] = {
    "-n", "-np", "--np", "--n", "-x", "--timeout", "-timeout", "--exec-prefix", "--map-by",
    "-map-by", "--bind-to", "-bind-to", "--cpus-per-rank", "-cpus-per-rank", "--topology",
    "-topology", "-hosts", "--hosts", "-host", "--host", "-H", "-f", "-hostfile", "--hostfile",
    "-machinefile", "--machinefile", "-ppn", "--ppn", "-npernode", "--npernode", "-launcher",
    "--launcher", "-bootstrap", "-launcher-exec", "--launcher-exec", "-bootstrap-exec",
    "-envlist", "--envlist", "-genvlist", "-wdir", "--wdir", "-wd", "--wd", "-prepend-pattern",
    "--tree-width", "--heartbeat", "--proxy-path", "-usize", "--usize", "--faro-spawned-job", NULL
};

static int opt_takes_one(const char *a)
{
    for (int i = 0; opt_one[i]; i++)
        if (!strcmp(a, opt_one[i]))
            return 1;
    return 0;
}

static int opt_hosts(struct mpx_opts *o, const char *a, const char *v, int file)
{
    char err[600];
    int rc = file ? mpx_hosts_read_file(&o->hosts, v, err, sizeof err)
                  : mpx_hosts_parse_list(&o->hosts, v, a, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "mpiexec: %s\n", err);
        return -1;
    }
    o->have_hosts = 1;
    return 0;
}

int mpx_opts_parse(int argc, char **argv, struct mpx_opts *o, int *done)
{
    memset(o, 0, sizeof *o);
    o->heartbeat_ms = MPX_HEARTBEAT_MS;
    o->tree_width = MPX_TREE_WIDTH;
    *done = 0;

    const char *t = getenv("MPIEXEC_TIMEOUT");
    if (t && *t && opt_int(t, 0, INT_MAX, &o->timeout_s) < 0) {
        fprintf(stderr, "mpiexec: MPIEXEC_TIMEOUT='%s' is not a number of seconds "
                "(0 or more; 0 means no limit)\n", t);
        return MPX_EXIT_USAGE;
    }

    o->spawned_fd = -1;
    const char *u = getenv("MPIEXEC_UNIVERSE_SIZE"); /* Hydra's name */
    if (u && *u && opt_int(u, 1, INT_MAX, &o->usize) < 0) {
        fprintf(stderr, "mpiexec: MPIEXEC_UNIVERSE_SIZE='%s' is not a number of processes "
                "(1 or more)\n", u);
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
        int takes = opt_takes_one(a);
        int takes2 = opt_is(a, "-genv", "--genv") || opt_is(a, "-env", "--env");
        if ((takes && i + 1 >= argc) || (takes2 && i + 2 >= argc)) {
            fprintf(stderr, "mpiexec: option %s needs %s\n", a,
                    takes2 ? "two values: VAR VALUE" : "a value");
            return MPX_EXIT_USAGE;
        }
        const char *v = takes ? argv[i + 1] : NULL;
        i += takes;
        if (opt_is(a, "-n", "-np") || opt_is(a, "--np", "--n")) {
            if (opt_int(v, 1, MPX_MAX_NP, &o->np) < 0) {
                fprintf(stderr, "mpiexec: %s '%s': the number of ranks must be an integer "
                        "from 1 to %d\n", a, v, MPX_MAX_NP);
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "-x", NULL)) {
            const char *eq = strchr(v, '=');
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
        } else if (opt_is(a, "-envall", "--envall") || opt_is(a, "-genvall", NULL)) {
            o->env_mode = MPX_ENV_ALL;
        } else if (opt_is(a, "-envnone", "--envnone") || opt_is(a, "-genvnone", NULL)) {
            o->env_mode = MPX_ENV_NONE;
        } else if (opt_is(a, "-envlist", "--envlist") || opt_is(a, "-genvlist", NULL)) {
            mpx_argv_free(o->envlist);
            char *list = strdup(v);
            for (char *c = list; c && *c; c++)
                if (*c == ',')
                    *c = ' ';
            o->envlist = list ? mpx_split(list) : NULL;
            free(list);
            for (o->nenvlist = 0; o->envlist && o->envlist[o->nenvlist]; o->nenvlist++)
                if (!opt_valid_name(o->envlist[o->nenvlist], strlen(o->envlist[o->nenvlist]))) {
                    fprintf(stderr, "mpiexec: %s: '%s' is not a valid environment variable "
                            "name\n", a, o->envlist[o->nenvlist]);
                    return MPX_EXIT_USAGE;
                }
            o->env_mode = MPX_ENV_LIST;
        } else if (opt_is(a, "-wdir", "--wdir") || opt_is(a, "-wd", "--wd")) {
            o->wdir = v;
        } else if (opt_is(a, "--timeout", "-timeout")) {
            if (opt_int(v, 0, INT_MAX, &o->timeout_s) < 0) {
                fprintf(stderr, "mpiexec: --timeout '%s': expected a number of seconds "
                        "(0 or more; 0 means no limit)\n", v);
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "--exec-prefix", NULL)) {
            mpx_argv_free(o->prefix);
            if (!(o->prefix = mpx_split(v))) {
                fprintf(stderr, "mpiexec: --exec-prefix needs a command, e.g. "
                        "--exec-prefix 'valgrind -q'\n");
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "--map-by", "-map-by")) {
            char err[256];
            int rc = mpx_map_parse(v, &o->map_policy, &o->ppn, err, sizeof err);
            if (rc < 0) {
                fprintf(stderr, "mpiexec: %s\n", err);
                return MPX_EXIT_USAGE;
            }
            if (rc == 0) /* not a host policy: the library's affinity policy */
                o->map_by = v;
        } else if (opt_is(a, "--bind-to", "-bind-to")) {
            o->bind_to = v;
        } else if (opt_is(a, "--topology", "-topology")) {
            o->topology = v;
        } else if (opt_is(a, "--cpus-per-rank", "-cpus-per-rank")) {
            /* Checked here too: it becomes OMP_NUM_THREADS as given. */
            int n;
            if (opt_int(v, 1, 1 << 20, &n) < 0) {
                fprintf(stderr, "mpiexec: --cpus-per-rank '%s': expected a whole number of "
                        "cores, 1 or more\n", v);
                return MPX_EXIT_USAGE;
            }
            o->cpus_per_rank = v;
        } else if (opt_is(a, "-hosts", "--hosts") || opt_is(a, "-host", "--host") ||
                   opt_is(a, "-H", NULL)) {
            if (opt_hosts(o, a, v, 0) < 0)
                return MPX_EXIT_USAGE;
        } else if (opt_is(a, "-f", "-hostfile") || opt_is(a, "--hostfile", "-machinefile") ||
                   opt_is(a, "--machinefile", NULL)) {
            if (opt_hosts(o, a, v, 1) < 0)
                return MPX_EXIT_USAGE;
        } else if (opt_is(a, "-ppn", "--ppn") || opt_is(a, "-npernode", "--npernode")) {
            if (opt_int(v, 1, 1 << 20, &o->ppn) < 0) {
                fprintf(stderr, "mpiexec: %s '%s': expected a whole number of ranks per host, "
                        "1 or more\n", a, v);
                return MPX_EXIT_USAGE;
            }
            o->map_policy = MPX_MAP_PPR;
        } else if (opt_is(a, "-launcher", "--launcher") || opt_is(a, "-bootstrap", NULL)) {
            if (strcmp(v, "ssh") && strcmp(v, "rsh") && strcmp(v, "fork") && strcmp(v, "slurm")) {
                fprintf(stderr, "mpiexec: %s '%s': expected ssh, rsh, slurm or fork (or give "
                        "the command with -launcher-exec)\n", a, v);
                return MPX_EXIT_USAGE;
            }
            o->launcher = v;
        } else if (opt_is(a, "-launcher-exec", "--launcher-exec") ||
                   opt_is(a, "-bootstrap-exec", NULL)) {
            mpx_argv_free(o->launcher_exec);
            if (!(o->launcher_exec = mpx_split(v))) {
                fprintf(stderr, "mpiexec: %s needs a command\n", a);
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "--tree-width", NULL)) {
            if (opt_int(v, 1, 4096, &o->tree_width) < 0) {
                fprintf(stderr, "mpiexec: --tree-width '%s': expected a whole number from 1 "
                        "to 4096\n", v);
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "--heartbeat", NULL)) {
            char *end;
            double sec = strtod(v, &end);
            if (*end || end == v || !(sec >= 0.2 && sec <= 3600)) {
                fprintf(stderr, "mpiexec: --heartbeat '%s': expected seconds from 0.2 to "
                        "3600\n", v);
                return MPX_EXIT_USAGE;
            }
            o->heartbeat_ms = (int)(sec * 1000);
        } else if (opt_is(a, "--proxy-path", NULL)) {
            o->proxy_path = v;
        } else if (opt_is(a, "-usize", "--usize")) {
            if (opt_int(v, 1, INT_MAX, &o->usize) < 0) {
                fprintf(stderr, "mpiexec: %s '%s': expected the universe size, a whole number "
                        "of processes (1 or more)\n", a, v);
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "--faro-spawned-job", NULL)) {
            /* Internal: the first mpiexec of a launch starts one of these
             * per spawned job (subjob.c), with the job on this socket. */
            if (opt_int(v, 3, 1 << 20, &o->spawned_fd) < 0) {
                fprintf(stderr, "mpiexec: --faro-spawned-job is for mpiexec's own use\n");
                return MPX_EXIT_USAGE;
            }
        } else if (opt_is(a, "--report-bindings", "-report-bindings")) {
            o->report_bindings = 1;
        } else if (opt_is(a, "--dry-run", "-dry-run")) {
            o->dry_run = 1;
        } else if (opt_is(a, "-l", "--tag-output") || opt_is(a, "-tag-output", "-prepend-rank")) {
            o->tag = "[%r] ";
        } else if (opt_is(a, "--tag-host", "-tag-host")) {
            o->tag = "[%r@%h] ";
        } else if (opt_is(a, "-prepend-pattern", NULL)) {
            o->tag = v;
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
    o->cmdline = argv + 1;
    o->ncmdline = i - 1 - (i <= argc && i > 1 && !strcmp(argv[i - 1], "--"));
    if (i >= argc && (o->dry_run || o->spawned_fd >= 0))
        return 0; /* the placement needs no program; a spawned job's comes on its socket */
    if (i >= argc) {
        fprintf(stderr, "mpiexec: no program given\n%s", opt_usage);
        return MPX_EXIT_USAGE;
    }
    o->argv = argv + i;
    return 0;
}

/* Options the mpiexec of a spawned job takes from the first one: all but
 * the number of ranks, the time limit (the first mpiexec's covers every
 * job), a dry run and the universe (it comes with the job). */
static int opt_not_inherited(const char *a)
{
    return opt_is(a, "-n", "-np") || opt_is(a, "--np", "--n") || opt_is(a, "--timeout",
           "-timeout") || opt_is(a, "--dry-run", "-dry-run") || opt_is(a, "-usize", "--usize") ||
           opt_is(a, "--faro-spawned-job", NULL);
}

char **mpx_opts_respawn(const struct mpx_opts *o, const char *self, int fd)
{
    char **v = calloc((size_t)o->ncmdline + 4, sizeof *v), fdstr[16];
    size_t k = 0;
    if (!v)
        return NULL;
    v[k++] = strdup(self);
    for (int i = 0; i < o->ncmdline; i++) {
        const char *a = o->cmdline[i];
        int n = 1 + opt_takes_one(a) + 2 * (opt_is(a, "-genv", "--genv") || opt_is(a, "-env",
                                                                              "--env"));
        for (int j = 0; !opt_not_inherited(a) && j < n && i + j < o->ncmdline; j++)
            v[k++] = strdup(o->cmdline[i + j]);
        i += n - 1;
    }
    snprintf(fdstr, sizeof fdstr, "%d", fd);
    v[k++] = strdup("--faro-spawned-job");
    v[k++] = strdup(fdstr);
    for (size_t i = 0; i < k; i++)
        if (!v[i]) {
            mpx_argv_free(v);
            return NULL;
        }
    return v;
}

void mpx_opts_free(struct mpx_opts *o)
{
    for (size_t i = 0; i < o->nenv; i++)
        free(o->env[i]);
    free(o->env);
    mpx_argv_free(o->prefix);
    mpx_argv_free(o->launcher_exec);
    mpx_argv_free(o->envlist);
    mpx_hosts_free(&o->hosts);
}
