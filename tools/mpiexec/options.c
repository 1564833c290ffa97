/* mpiexec command line: Open MPI and MPICH (Hydra) spellings of the common
 * options. */
#include "config.h"

#include "mpiexec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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

/* Append "name=val" to the NULL-terminated list *env of *nenv entries. */
static int opt_add_env(char ***env, size_t *nenv, const char *name, size_t namelen,
                       const char *val)
{
    if (!opt_valid_name(name, namelen)) {
        fprintf(stderr, "mpiexec: '%.*s' is not a valid environment variable name "
                "(letters, digits and '_', not starting with a digit)\n", (int)namelen, name);
        return -1;
    }
    char **n = realloc(*env, (*nenv + 2) * sizeof *n);
    if (!n)
        return -1;
    *env = n;
    size_t len = namelen + 1 + strlen(val) + 1;
    if (!(n[*nenv] = malloc(len)))
        return -1;
    snprintf(n[*nenv], len, "%.*s=%s", (int)namelen, name, val);
    n[++*nenv] = NULL; /* NULL-terminated, for the job description */
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

/* Open MPI's component parameters: Faro has none, but says what to set. */
static int opt_mca(const char *name, const char *value)
{
    static const struct {
        const char *mca, *faro;
    } map[] = {
        { "btl", "FARO_TRANSPORTS (self, shm, tcp, ofi, verbs; e.g. -x FARO_TRANSPORTS=tcp,self)" },
        { "pml", "FARO_TRANSPORTS (Faro has one point-to-point layer over every transport)" },
        { "mtl", "FARO_TRANSPORTS=ofi and FARO_OFI_PROVIDER" },
        { "btl_tcp_if_include", "FARO_TCP_IF (names, addresses or CIDRs)" },
        { "btl_tcp_if_exclude", "FARO_TCP_IF with ^ (e.g. FARO_TCP_IF=^docker0)" },
        { "oob_tcp_if_include", "FARO_TCP_IF (mpiexec's links follow it too)" },
        { "mtl_ofi_provider_include", "FARO_OFI_PROVIDER" },
        { "btl_sm_eager_limit", "FARO_SHM_EAGER_LIMIT" },
        { "btl_vader_eager_limit", "FARO_SHM_EAGER_LIMIT" },
        { "btl_tcp_eager_limit", "FARO_TCP_EAGER_LIMIT" },
        { "hwloc_base_binding_policy", "--bind-to" },
        { "rmaps_base_mapping_policy", "--map-by" },
        { "coll_tuned_use_dynamic_rules", "FARO_COLL_<COLL>_ALGORITHM or FARO_COLL_TUNING_FILE "
                                          "(faro-coll(7))" },
    };
    const char *faro = NULL;
    for (size_t i = 0; i < sizeof map / sizeof map[0] && !faro; i++)
        if (!strcmp(name, map[i].mca))
            faro = map[i].faro;
    fprintf(stderr, "mpiexec: --mca %s %s: Faro has no MCA parameters (they are Open MPI's); "
            "%s%s. Every Faro tunable is an environment variable FARO_*: faro_info lists them "
            "with their values, faro-tunables(7) explains them, and -x VAR=VALUE passes one "
            "to the ranks.\n", name, value, faro ? "the Faro equivalent is " : "",
            faro ? faro : "Faro has no direct equivalent of this one");
    return MPX_EXIT_USAGE;
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

/* What parsing has reached: the words being read (the command line, or a
 * config file's after -configfile), the next one, and the program whose
 * options come now. */
struct opt_state {
    int argc, i;
    char **argv;
    struct mpx_app cur;
};

enum { OPT_NEXT = -1, OPT_PROGRAM = -2, OPT_DONE = -3 };

/* The option at st->argv[st->i]: OPT_NEXT once taken (st->i on its last
 * value), OPT_PROGRAM at the program (st->i on it), OPT_DONE after --help or
 * --version, else the exit code of a usage error. */
static int opt_one_option(struct opt_state *st, struct mpx_opts *o)
{
    const char *a = st->argv[st->i];
    if (a[0] != '-')
        return OPT_PROGRAM;
    if (strcmp(a, "--") == 0) {
        st->i++;
        return OPT_PROGRAM;
    }
    const struct mpx_opt_spec *sp = mpx_opt_find(a);
    if (!sp) {
        fprintf(stderr, "mpiexec: unknown option '%s'\nValid options: ", a);
        mpx_opt_print_valid(stderr);
        fprintf(stderr, "Run 'mpiexec --help' for details; put '--' before a program whose "
                "name starts with '-'.\n");
        return MPX_EXIT_USAGE;
    }
    int takes = sp->words == 1, mca = sp->words == 2;
    int envw = sp->words == MPX_OPT_ENV ? mpx_opt_words(sp, st->i + 1 < st->argc ?
                                                    st->argv[st->i + 1] : NULL) : 0;
    int takes2 = envw == 2 || mca;
    if ((takes && st->i + 1 >= st->argc) || (takes2 && st->i + 2 >= st->argc)) {
        fprintf(stderr, "mpiexec: option %s needs %s\n", a, mca ? "two values: NAME VALUE"
                : envw ? "VAR=VALUE, or two values: VAR VALUE" : "a value");
        return MPX_EXIT_USAGE;
    }
    const char *v = takes ? st->argv[st->i + 1] : NULL;
    st->i += takes;
    if (opt_is(a, "-n", "-np") || opt_is(a, "--np", "--n")) {
        if (opt_int(v, 1, MPX_MAX_NP, &st->cur.np) < 0) {
            fprintf(stderr, "mpiexec: %s '%s': the number of ranks must be an integer "
                    "from 1 to %d\n", a, v, MPX_MAX_NP);
            return MPX_EXIT_USAGE;
        }
    } else if (opt_is(a, "-x", NULL)) {
        const char *eq = strchr(v, '=');
        if (eq) {
            if (opt_add_env(&st->cur.env, &st->cur.nenv, v, (size_t)(eq - v), eq + 1) < 0)
                return MPX_EXIT_USAGE;
        } else if (!getenv(v)) {
            fprintf(stderr, "mpiexec: warning: -x %s: %s is not set here, so there is "
                    "nothing to pass (use -x %s=VALUE to set it)\n", v, v, v);
        } else if (opt_add_env(&st->cur.env, &st->cur.nenv, v, strlen(v), getenv(v)) < 0) {
            return MPX_EXIT_USAGE;
        }
    } else if (envw) { /* -env, -genv */
        int global = opt_is(a, "-genv", "--genv");
        const char *name = st->argv[st->i + 1], *eq = strchr(name, '=');
        const char *val = envw == 1 ? eq + 1 : st->argv[st->i + 2];
        if (opt_add_env(global ? &o->env : &st->cur.env, global ? &o->nenv : &st->cur.nenv,
                        name, envw == 1 ? (size_t)(eq - name) : strlen(name), val) < 0)
            return MPX_EXIT_USAGE;
        st->i += envw;
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
        st->cur.wdir = v;
    } else if (opt_is(a, "-configfile", "--configfile") || opt_is(a, "--app", "-app")) {
        /* The programs come from the file; the command line ends here. */
        char err[600];
        if (o->file_args || o->napps || st->i + 1 < st->argc) {
            fprintf(stderr, "mpiexec: %s %s must be the last thing on the command line, "
                    "given once and without programs of its own\n", a, v);
            return MPX_EXIT_USAGE;
        }
        if (!(o->file_args = mpx_apps_read_file(v, err, sizeof err))) {
            fprintf(stderr, "mpiexec: %s\n", err);
            return MPX_EXIT_USAGE;
        }
        for (st->argc = 0; o->file_args[st->argc]; st->argc++)
            ;
        st->argv = o->file_args;
        st->i = -1; /* the loop goes on at the file's first word */
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
        if (rc == 0 || rc == 2) { /* not a host policy: the library's affinity policy */
            o->map_by = v;
            o->ppr_local = rc == 2 ? v : NULL;
        }
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
        /* Internal: the first mpiexec of a launch starts one of these per
         * spawned job (subjob.c), with the job on this socket. */
        if (opt_int(v, 3, 1 << 20, &o->spawned_fd) < 0) {
            fprintf(stderr, "mpiexec: --faro-spawned-job is for mpiexec's own use\n");
            return MPX_EXIT_USAGE;
        }
    } else if (mca) {
        return opt_mca(st->argv[st->i + 1], st->argv[st->i + 2]);
    } else if (opt_is(a, "-outfile-pattern", NULL)) {
        o->outfile_pattern = v;
    } else if (opt_is(a, "-errfile-pattern", NULL)) {
        o->errfile_pattern = v;
    } else if (opt_is(a, "--output-filename", "-output-filename")) {
        /* Open MPI: DIR[:nocopy]; made absolute here, since the ranks'
         * hosts write the files. */
        static char dir[PATH_MAX];
        size_t n = strlen(v);
        o->output_copy = !(n > 7 && !strcasecmp(v + n - 7, ":nocopy"));
        n -= o->output_copy ? 0 : 7;
        char cwd[PATH_MAX] = ".";
        if (v[0] != '/' && !getcwd(cwd, sizeof cwd))
            return fprintf(stderr, "mpiexec: %s: %s\n", a, strerror(errno)), MPX_EXIT_USAGE;
        if (n == 0 || (size_t)snprintf(dir, sizeof dir, "%s%s%.*s", v[0] == '/' ? "" : cwd,
                                        v[0] == '/' ? "" : "/", (int)n, v) >= sizeof dir) {
            fprintf(stderr, "mpiexec: %s '%s': expected a directory, optionally followed by "
                    ":nocopy\n", a, v);
            return MPX_EXIT_USAGE;
        }
        o->output_dir = dir;
    } else if (opt_is(a, "--hang-report", "-hang-report")) {
        if (opt_int(v, 1, 86400, &o->hang_report) < 0) {
            fprintf(stderr, "mpiexec: %s '%s': expected the seconds a rank may wait in MPI "
                    "before it reports, 1 to 86400\n", a, v);
            return MPX_EXIT_USAGE;
        }
        if (opt_add_env(&o->env, &o->nenv, "FARO_HANG_REPORT", 16, v) < 0)
            return MPX_EXIT_USAGE;
    } else if (opt_is(a, "--timestamp-output", "-timestamp-output")) {
        o->timestamp = 1;
    } else if (opt_is(a, "--display-map", "-display-map")) {
        o->display_map = 1;
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
        fputs(mpx_usage, stdout);
        return OPT_DONE;
    } else if (opt_is(a, "-V", "--version") || opt_is(a, "-version", NULL)) {
        printf("mpiexec (Faro) %s\n", PACKAGE_VERSION);
        return OPT_DONE;
    } else { /* in opt_table without a case here: a bug, caught by usage.sh */
        fprintf(stderr, "mpiexec: unknown option '%s' (it is in mpiexec's option table but "
                "not handled)\n", a);
        return MPX_EXIT_USAGE;
    }
    return OPT_NEXT;
}

/* ppr:N:socket (numa, l3cache, core) gives no rank count here: mpiexec
 * does not read the hosts' topology (each host maps its own at MPI_Init), so
 * it cannot work out N x sockets per host as Open MPI's daemons do. */
static int opt_ppr_needs_n(const struct mpx_opts *o, int np)
{
    if (!o->ppr_local || np)
        return 0;
    fprintf(stderr, "mpiexec: --map-by %s needs -n: mpiexec does not know the sockets, NUMA "
            "nodes, caches or cores of the hosts (each host places its ranks on its own "
            "topology at MPI_Init, and fails naming the host when it got more than fit); "
            "give the number of ranks, and -ppn or the hosts' slots for how many go to each "
            "host\n", o->ppr_local);
    return MPX_EXIT_USAGE;
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

    o->cmdline = argv + 1; /* the options, for a spawned job's mpiexec */
    o->ncmdline = argc - 1;
    /* Each program's options, then the program and its arguments up to ':'. */
    struct opt_state st = { .argc = argc, .argv = argv, .i = 1 };
    for (;;) {
        int rc = OPT_NEXT;
        for (; st.i < st.argc && (rc = opt_one_option(&st, o)) == OPT_NEXT; st.i++)
            ;
        if (rc == OPT_DONE) {
            *done = 1;
            return 0;
        }
        if (rc >= 0)
            return rc;
        if (st.i >= st.argc && o->napps == 0 && o->spawned_fd >= 0) {
            /* A spawned job's programs come on its socket; -x and -env before
             * them are the whole job's. */
            for (size_t k = 0; k < st.cur.nenv; k++) {
                const char *e = st.cur.env[k], *eq = strchr(e, '=');
                if (opt_add_env(&o->env, &o->nenv, e, (size_t)(eq - e), eq + 1) < 0)
                    return MPX_EXIT_USAGE;
                free(st.cur.env[k]);
            }
            free(st.cur.env);
            return 0;
        }
        if (st.i >= st.argc && o->napps == 0 && o->dry_run && !o->file_args) {
            o->np = st.cur.np; /* the placement needs no program, only -n */
            return opt_ppr_needs_n(o, o->np);
        }
        if (st.i >= st.argc || !strcmp(st.argv[st.i], ":")) {
            if (o->napps == 0)
                fprintf(stderr, "mpiexec: no program given%s\n%s", o->file_args ?
                        " in the config file" : "", o->file_args ? "" : mpx_usage);
            else
                fprintf(stderr, "mpiexec: no program given after the options of program %d "
                        "(each ':' must be followed by a program)\n", o->napps + 1);
            return MPX_EXIT_USAGE;
        }
        /* The program: its words up to ':' (which becomes the end of its argv). */
        struct mpx_app *apps = realloc(o->apps, ((size_t)o->napps + 1) * sizeof *apps);
        if (!apps)
            return fprintf(stderr, "mpiexec: out of memory\n"), 1;
        o->apps = apps;
        st.cur.argv = st.argv + st.i;
        while (st.i < st.argc && strcmp(st.argv[st.i], ":"))
            st.i++;
        apps[o->napps++] = st.cur;
        memset(&st.cur, 0, sizeof st.cur);
        if (st.i >= st.argc)
            break;
        st.argv[st.i++] = NULL;
    }
    o->np = 0;
    for (int k = 0; k < o->napps; k++) {
        if (o->napps > 1 && o->apps[k].np == 0) {
            fprintf(stderr, "mpiexec: program %d (%s) has no -n: with several programs each "
                    "needs its own -n\n", k + 1, o->apps[k].argv[0]);
            return MPX_EXIT_USAGE;
        }
        if ((o->np += o->apps[k].np) > MPX_MAX_NP) {
            fprintf(stderr, "mpiexec: the programs ask for more than %d ranks in all\n",
                    MPX_MAX_NP);
            return MPX_EXIT_USAGE;
        }
    }
    return opt_ppr_needs_n(o, o->np);
}

/* Options the mpiexec of a spawned job does not take from the first one:
 * the number of ranks, programs and their directories and output files (the
 * job brings its own), the time limit (the first mpiexec's covers every
 * job), a dry run and the universe (it comes with the job). */
static int opt_not_inherited(const char *a)
{
    static const char *const no[] = {
        "-n", "-np", "--np", "--n", "--timeout", "-timeout", "--dry-run", "-dry-run", "-usize",
        "--usize", "--faro-spawned-job", "-configfile", "--configfile", "--app", "-app",
        "-wdir", "--wdir", "-wd", "--wd", "-outfile-pattern", "-errfile-pattern",
        "--output-filename", "-output-filename", NULL
    };
    for (int i = 0; no[i]; i++)
        if (!strcmp(a, no[i]))
            return 1;
    return 0;
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
        if (!a || a[0] != '-' || !strcmp(a, "--")) /* the first program: the options end */
            break;
        const struct mpx_opt_spec *sp = mpx_opt_find(a);
        int n = 1 + (sp ? mpx_opt_words(sp, i + 1 < o->ncmdline ? o->cmdline[i + 1] : NULL) : 0);
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
    for (int k = 0; k < o->napps; k++) {
        for (size_t i = 0; i < o->apps[k].nenv; i++)
            free(o->apps[k].env[i]);
        free(o->apps[k].env);
    }
    free(o->apps);
    mpx_argv_free(o->file_args);
    mpx_argv_free(o->prefix);
    mpx_argv_free(o->launcher_exec);
    mpx_argv_free(o->envlist);
    mpx_hosts_free(&o->hosts);
}
