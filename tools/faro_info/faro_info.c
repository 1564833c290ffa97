/*
 * faro_info: what this Faro installation is and what it would do here.
 *
 * Prints the version and build options, probes every compiled-in transport the
 * way MPI_Init would for a singleton (init, wireup_done, finalize) and says
 * whether it is usable and with which limits, and lists every tunable with its
 * current value. `--man` writes faro-tunables(7). `--map -n N` prints the
 * placement N ranks of one node would get (affinity/affinity.h), binding nothing.
 * `--coll` lists the collective algorithms and the selection rules in effect
 * (coll/select.h), in the FARO_COLL_TUNING_FILE format. `--pmi` says which
 * process manager protocol MPI_Init would speak here, and why (base/pmi.h).
 * `--prefix` prints where the installation is (paths.c); `--parsable` prints
 * everything as KEY:VALUE lines for scripts (parsable.c); `--mpit` lists what
 * the MPI_T tool interface exposes (mpit.c).
 */
#include "config.h"
#include "affinity.h"
#include "faro_info.h"
#include "man_tunables.h"
#include "base/log.h"
#include "base/tunables.h"
#include "select.h"
#include "transport.h"
#include "base/netif.h"
#include "base/pmi.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SHOW_VERSION = 1, SHOW_TRANSPORTS = 2, SHOW_TUNABLES = 4, SHOW_NETWORK = 8,
       SHOW_PMI = 16 };

static void usage(FILE *out)
{
    fputs("Usage: faro_info [OPTION]...\n"
          "Show the Faro version and build, the transports usable on this machine, and the\n"
          "FARO_* tunables with their current values.\n"
          "\n"
          "  -a, --all         everything, with the long description of each tunable\n"
          "      --tunables    only the tunables\n"
          "      --transports  only the transports\n"
          "      --network     only the network interfaces TCP would use, and why\n"
          "      --pmi         only the process manager protocol MPI_Init would use, and why\n"
          "      --man         print the faro-tunables(7) man page (roff)\n"
          "      --coll        the collective algorithms and the selection rules in effect\n"
          "                    (after FARO_COLL_TUNING_FILE), as a tuning file to edit\n"
          "      --parsable    everything as KEY:VALUE lines, one a line, for scripts\n"
          "      --mpit        the MPI_T control and performance variables, by category\n"
          "      --prefix      the directory Faro is installed in (FARO_PREFIX, else where\n"
          "                    this program is, else the configured prefix)\n"
          "      --gpu         the GPU offload layer: built or not, where its client\n"
          "                    library (libcudart.so.13) and faro-gpud are, how to run a\n"
          "                    CUDA program with them; exit 1 when it is not built\n"
          "      --map -n N [--map-by X] [--bind-to Y] [--cpus-per-rank K] [--topology SPEC]\n"
          "                    [--nic NAME]\n"
          "                    print the placement N ranks of one node would get, one line\n"
          "                    per rank, without running anything; unset options come from\n"
          "                    FARO_MAP_BY, FARO_BIND_TO, FARO_CPUS_PER_RANK, FARO_TOPOLOGY\n"
          "                    and FARO_NIC\n"
          "  -h, --help        this text\n"
          "  -V, --version     the version only\n"
          "\n"
          "Without options it prints the version, the process manager protocol, the\n"
          "transports, the network interfaces and a one-line summary of each tunable.\n"
          "See faro_info(1) and faro-tunables(7).\n",
          out);
}

/* The protocol MPI_Init would speak with the process manager here; nothing
 * is connected. */
static void show_pmi(void)
{
    char why[512];
    const char *proto = faro_pmi_choose(why, sizeof why);
    printf("Process manager (protocols built: %s):\n", faro_pmi_built());
    if (proto)
        printf("  here: %s, because %s\n\n", proto, why);
    else
        printf("  here: none usable: %s\n\n", why);
}

/* Sizes the way users write them: 64k rather than 65536. */
static void fmt_size(char *buf, size_t len, unsigned long long v)
{
    if (v == (unsigned long long)SIZE_MAX)
        snprintf(buf, len, "unlimited");
    else if (v && v % (1ULL << 30) == 0)
        snprintf(buf, len, "%llug", v >> 30);
    else if (v && v % (1ULL << 20) == 0)
        snprintf(buf, len, "%llum", v >> 20);
    else if (v && v % (1ULL << 10) == 0)
        snprintf(buf, len, "%lluk", v >> 10);
    else
        snprintf(buf, len, "%llu", v);
}

static void print_caps(uint32_t caps)
{
    static const struct { uint32_t bit; const char *word; } names[] = {
        {FARO_TP_CAP_PUT, "put"},
        {FARO_TP_CAP_GET, "get"},
        {FARO_TP_CAP_SINGLE_COPY, "single-copy"},
        {FARO_TP_CAP_LOCAL_ONLY, "local-only"},
        {FARO_TP_CAP_SELF_ONLY, "self-only"},
        {FARO_TP_CAP_THREAD_SAFE, "thread-safe"},
        {FARO_TP_CAP_DEVICE_MEM, "device-memory"},
        {FARO_TP_CAP_LOCAL_REG, "local-registration"},
        {FARO_TP_CAP_PORTS, "ports"},
    };
    int any = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (caps & names[i].bit) {
            printf("%s%s", any ? " " : "", names[i].word);
            any = 1;
            caps &= ~names[i].bit;
        }
    }
    if (caps) /* a bit this faro_info does not know: show it rather than hide it */
        printf("%s0x%x", any ? " " : "", (unsigned)caps);
    else if (!any)
        printf("none");
}

/* Is `name` in the comma-separated FARO_TRANSPORTS list? */
static void no_ep_lost(void *core, void *ctx, int orderly, const char *why) {}

/* A secret for the probe only; a transport may want one at init. */
static void make_job_key(uint8_t *key, size_t len)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, key, len) : -1;
    if (fd >= 0)
        close(fd);
    if (got != (ssize_t)len) {
        unsigned long long seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
        for (size_t i = 0; i < len; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            key[i] = (uint8_t)(seed >> 56);
        }
    }
}

static void print_attr(const faro_tp_ops_t *ops, faro_tp_t *tp, const faro_tp_attr_t *a)
{
    char inl[32], snd[32], eag[32], frag[32], get[32];
    fmt_size(inl, sizeof inl, a->max_inline);
    fmt_size(snd, sizeof snd, a->max_send);
    fmt_size(eag, sizeof eag, a->eager_limit);
    fmt_size(frag, sizeof frag, a->frag_size);
    printf("      caps:        ");
    print_caps(a->caps);
    printf("\n      max_inline:  %s\n", inl);
    printf("      max_send:    %s\n", snd);
    printf("      eager_limit: %s", eag);
    if (a->eager_limit_user)
        printf(" (set by its own FARO_<TRANSPORT>_EAGER_LIMIT)");
    else if (faro_tun_isset(FARO_TUN_EAGER_LIMIT))
        printf(" (the core uses FARO_EAGER_LIMIT=%s instead)", faro_tun_str(FARO_TUN_EAGER_LIMIT));
    printf("\n      frag_size:   %s\n", frag);
    if (a->caps & (FARO_TP_CAP_PUT | FARO_TP_CAP_GET)) {
        char put[32];
        fmt_size(get, sizeof get, a->max_get);
        fmt_size(put, sizeof put, a->max_put);
        printf("      max_get:     %s\n      max_put:     %s\n      rkey_size:   %zu bytes\n",
               get, put, a->rkey_size);
    }
    int fd;
    printf("      wait fd:     %s\n",
           a->pending ? "none needed (it says when it has work; an idle rank may sleep)"
           : ops->wait_fd(tp, &fd) == FARO_TP_OK ? "yes (an idle rank may sleep in poll)"
                                                 : "no (an idle rank polls)");
    printf("      latency:     %.2f us (hint)\n", a->latency_us);
    printf("      bandwidth:   %.0f MB/s (hint)\n", a->bandwidth_mbs);
}

/* What a usable transport noted about its choices (transport.h, init): one
 * line each, indented under its attributes. */
static void print_note(const char *note)
{
    for (const char *p = note; *p;) {
        size_t n = strcspn(p, "\n");
        if (n)
            printf("      %s %.*s\n", p == note ? "found:      " : "            ", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

void faro_info_probe_env_init(struct faro_info_probe_env *s)
{
    long ncores = sysconf(_SC_NPROCESSORS_ONLN);
    memset(s, 0, sizeof *s);
    snprintf(s->jobid, sizeof s->jobid, "faro-info-%ld", (long)getpid());
    make_job_key(s->key, sizeof s->key);
    s->env = (faro_tp_env_t){
        .rank = 0, .size = 1, .node_of = s->node_of,
        .local_rank = 0, .local_size = 1, .local_ranks = s->local_ranks,
        .jobid = s->jobid, .job_key = s->key, .job_key_len = sizeof s->key,
        .ncores = ncores > 0 ? (int)ncores : 1,
        .core = NULL, .ep_lost = no_ep_lost,
    };
}

int faro_info_probe(const faro_tp_ops_t *ops, faro_tp_env_t *env, faro_tp_t **tp,
                    faro_tp_attr_t *attr, char *why, size_t whylen)
{
    *tp = NULL;
    why[0] = '\0';
    memset(attr, 0, sizeof *attr);
    int rc = ops->init(tp, env, attr, why, whylen);
    /* wireup_done may narrow the attributes (e.g. a failed CMA probe) and
     * removes names a transport published, so nothing is left behind. */
    if (rc == FARO_TP_OK && ops->wireup_done(*tp) < 0) {
        snprintf(why, whylen, "wire-up failed after a successful init");
        rc = FARO_TP_ERR;
        ops->finalize(*tp);
    }
    return rc;
}

const struct faro_info_optional_tp faro_info_optional_tps[] = {
    {"ofi", FARO_OFI_NOT_BUILT},
    {"verbs", FARO_VERBS_NOT_BUILT},
    {NULL, NULL},
};

static void show_transports(void)
{
    struct faro_info_probe_env pe;
    faro_info_probe_env_init(&pe);
    const char *allowed = faro_tun_str(FARO_TUN_TRANSPORTS);

    printf("Transports (compiled in, in order of preference; probed as a singleton):\n");
    for (int i = 0; faro_transports[i]; i++) {
        const faro_tp_ops_t *ops = faro_transports[i];
        faro_tp_t *tp;
        faro_tp_attr_t attr;
        char why[4096];
        int rc = faro_info_probe(ops, &pe.env, &tp, &attr, why, sizeof why);
        printf("  %-6s ", ops->name);
        if (rc == FARO_TP_OK) {
            printf("usable");
            if (strcmp(ops->name, "self") != 0 && faro_tp_list_pos(allowed, ops->name) < 0)
                printf(" (but not in FARO_TRANSPORTS=%s)", allowed);
            printf("\n");
            print_attr(ops, tp, &attr);
            print_note(why);
            ops->finalize(tp);
        } else if (rc == FARO_TP_UNAVAILABLE) {
            printf("unusable: %s\n", why[0] ? why : "(the transport gave no reason)");
        } else {
            printf("unusable: init failed (%d)%s%s\n", rc, why[0] ? ": " : "", why);
        }
    }
    for (int i = 0; faro_info_optional_tps[i].name; i++)
        if (faro_info_optional_tps[i].not_built[0])
            printf("  %-6s not built: %s\n", faro_info_optional_tps[i].name,
                   faro_info_optional_tps[i].not_built);
    printf("\n");
}

/* MPI_Init of a job of two processes needs a listed transport besides self
 * (which reaches only its own process) that starts here: without one it
 * fails with "no transport reaches rank N", and one that is broken (init
 * error, not merely absent) fails it at once. Probed as in show_transports,
 * the listed ones in turn until one works; 0 when one does. */
static int check_reach(const char *allowed, char *err, size_t errlen)
{
    struct faro_info_probe_env pe;
    faro_info_probe_env_init(&pe);
    char whys[2048] = "";
    for (int i = 0; faro_transports[i]; i++) {
        const faro_tp_ops_t *ops = faro_transports[i];
        if (!strcmp(ops->name, "self") || faro_tp_list_pos(allowed, ops->name) < 0)
            continue;
        faro_tp_t *tp;
        faro_tp_attr_t attr;
        char why[1024];
        int rc = faro_info_probe(ops, &pe.env, &tp, &attr, why, sizeof why);
        if (rc == FARO_TP_OK) {
            ops->finalize(tp);
            return 0;
        }
        if (rc != FARO_TP_UNAVAILABLE) {
            snprintf(err, errlen, "FARO_TRANSPORTS=%s: transport %s: %s; MPI_Init fails with "
                     "this", allowed, ops->name, why[0] ? why : "init failed");
            return -1;
        }
        size_t u = strlen(whys);
        snprintf(whys + u, sizeof whys - u, "%s%s: %s", u ? "; " : " (", ops->name,
                 why[0] ? why : "unusable");
    }
    snprintf(err, errlen, "FARO_TRANSPORTS=%s leaves no transport between two processes "
             "here%s%s: MPI_Init of a job of two or more processes would fail (\"no transport "
             "reaches rank N\"); only a job of one process runs (on self). List one that "
             "works here, e.g. FARO_TRANSPORTS=shm,tcp (faro_info --transports shows them "
             "all)", allowed, whys, whys[0] ? ")" : " (it lists none but self)");
    return -1;
}

/* The interfaces TCP would take for a job on this node only and for one on
 * several hosts (base/netif.h has the rules), with the reason. */
static void show_network(void)
{
    const char *spec = faro_tun_str(FARO_TUN_TCP_IF);
    const char *hint = getenv("FARO_INTERNAL_CONTROL_IF");
    printf("Network interfaces for TCP (FARO_TCP_IF=%s%s):\n", spec,
           hint ? "; this process runs under mpiexec's proxy" : "");
    for (int multi = 0; multi <= 1; multi++) {
        struct faro_netif ifs[FARO_NETIF_MAX];
        char reason[256], why[1024], a[64];
        int n = faro_netif_choose(spec, multi, hint, ifs, FARO_NETIF_MAX, reason, sizeof reason,
                                  why, sizeof why);
        printf("  %s ", multi ? "job on several hosts:" : "job on this node only:");
        if (n < 0) {
            printf("none: %s\n", why);
            continue;
        }
        printf("%s %s\n      because: %s\n", ifs[0].name,
               faro_netif_str(ifs[0].addr, ifs[0].prefix, a, sizeof a), reason);
        if (multi) {
            printf("      candidates, in order (mpiexec offers these to its proxies):");
            for (int i = 0; i < n; i++)
                printf(" %s %s", ifs[i].name, faro_netif_str(ifs[i].addr, ifs[i].prefix, a,
                                                             sizeof a));
            printf("\n");
        }
    }
    if (!*spec && !hint)
        printf("  Under mpiexec's proxies each host takes the interface its proxy's connection "
               "went out of.\n");
    printf("\n");
}

/* Wrap text at about 76 columns with the given indent. */
static void print_wrapped(const char *text, int indent)
{
    int col = indent;
    printf("%*s", indent, "");
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (w == 0)
            break;
        if (col > indent && col + 1 + (int)w > 76) {
            printf("\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            putchar(' ');
            col++;
        }
        fwrite(p, 1, w, stdout);
        col += (int)w;
        p += w;
    }
    putchar('\n');
}

static void show_tunables(int long_desc)
{
    printf("Tunables (environment variables; see faro-tunables(7)):\n");
    for (int i = 0; i < FARO_TUN_COUNT; i++) {
        const struct faro_tunable_desc *d = &faro_tunable_table[i];
        enum faro_tun_id id = (enum faro_tun_id)i;
        printf("  %s = ", d->name);
        if (faro_tun_isset(id)) {
            const char *text = faro_tun_str(id);
            printf("%s", text);
            long long v = faro_tun_int(id);
            if (d->type == FARO_TUN_TYPE_SIZE)
                printf(" (%lld bytes)", v);
            else if (d->type == FARO_TUN_TYPE_ENUM || d->type == FARO_TUN_TYPE_BOOL)
                printf(" (%lld)", v);
            printf("   [set; default %s]\n", d->def[0] ? d->def : "empty");
        } else {
            printf("%s   [default]\n", d->def[0] ? d->def : "(empty)");
        }
        printf("      ");
        faro_tun_describe_range(stdout, d, 0);
        printf("\n");
        print_wrapped(d->summary, 6);
        if (long_desc)
            print_wrapped(d->description, 10);
    }
}

/* --gpu: where the GPU offload layer's pieces are installed (docs/gpu.md). */
static int show_gpu(const struct faro_info_paths *paths)
{
#ifdef FARO_HAVE_GPU
    char lib[PATH_MAX + 32], gpud[PATH_MAX + 32];
    snprintf(lib, sizeof lib, "%s/libcudart.so.13", paths->gpulibdir);
    snprintf(gpud, sizeof gpud, "%s/faro-gpud", paths->bindir);
    printf("GPU offload: %s\n", FARO_GPU_NOTE);
    printf("  client library: %s%s\n", lib,
           access(lib, R_OK) == 0 ? "" : " (not there: not installed yet?)");
    printf("  server:         %s%s\n", gpud,
           access(gpud, X_OK) == 0 ? "" : " (not there: not installed yet?)");
    printf("  run a CUDA program built with nvcc -cudart shared (faro-gpu(7)):\n"
           "    LD_LIBRARY_PATH=%s FARO_GPU_SERVERS=HOST[:PORT] FARO_GPU_KEY_FILE=FILE PROGRAM\n"
           "  tunables: FARO_GPU_SERVERS, FARO_GPU_KEY_FILE, FARO_GPU_CHUNK, FARO_GPU_DEPTH\n"
           "  (faro_info --tunables); the key may also come from FARO_GPU_KEY\n",
           paths->gpulibdir);
    return fflush(stdout) == 0 ? 0 : 1;
#else
    (void)paths;
    printf("GPU offload: %s\n", FARO_GPU_NOTE);
    return 1;
#endif
}

/* --map: the placement table, computed exactly as MPI_Init would. */
static int show_map(int nranks, const char *map_by, const char *bind_to, const char *cpr_text,
                    const char *topology, const char *nic)
{
#ifdef FARO_HAVE_HWLOC
    char err[1024];
    long long cpr;
    if (nranks < 1) {
        fprintf(stderr, "faro_info: --map needs -n N with N >= 1 (the ranks of one node)\n");
        return 2;
    }
    if (faro_tun_parse(FARO_TUN_CPUS_PER_RANK, cpr_text, &cpr, err, sizeof err)) {
        fprintf(stderr, "faro_info: --cpus-per-rank: %s\n", err);
        return 1;
    }
    struct faro_policy p;
    struct faro_hwtopo *t;
    struct faro_placement pl;
    if (faro_policy_parse(map_by, bind_to, (int)cpr, &p, err, sizeof err)) {
        fprintf(stderr, "faro_info: %s\n", err);
        return 1;
    }
    snprintf(p.nic, sizeof p.nic, "%s", nic);
    if (faro_hwtopo_load(topology, &t, err, sizeof err)) {
        fprintf(stderr, "faro_info: %s\n", err);
        return 1;
    }
    if (faro_map(t, &p, nranks, &pl, err, sizeof err)) {
        fprintf(stderr, "faro_info: %s\n", err);
        faro_hwtopo_free(t);
        return 1;
    }
    printf("Placement of %d rank%s on %s (%d cores, %d hardware threads): map-by %s, bind-to "
           "%s, cpus-per-rank %d\n", nranks, nranks == 1 ? "" : "s",
           topology[0] ? topology : "this machine", faro_hwtopo_ncores(t), faro_hwtopo_npus(t),
           map_by[0] ? map_by : "core", bind_to[0] ? bind_to : "(default)", (int)cpr);
    if (pl.warning[0])
        printf("warning: %s\n", pl.warning);
    for (int r = 0; r < nranks; r++) {
        char line[2048];
        faro_placement_format(t, &pl, r, line, sizeof line);
        printf("  rank %d: %s\n", r, line);
    }
    faro_placement_free(&pl);
    faro_hwtopo_free(t);
    return fflush(stdout) == 0 ? 0 : 1;
#else
    (void)nranks, (void)map_by, (void)bind_to, (void)cpr_text, (void)topology, (void)nic;
    fprintf(stderr, "faro_info: --map is unavailable: Faro was built without hwloc\n");
    return 1;
#endif
}

int main(int argc, char **argv)
{
    int what = 0, all = 0, man = 0, map = 0, nranks = 0, coll = 0, parsable = 0, prefix = 0;
    int mpit = 0, gpu = 0;
    const char *map_opt[5] = {NULL}; /* map-by, bind-to, cpus-per-rank, topology, nic */
    static const char *const map_opt_names[5] = {"--map-by", "--bind-to", "--cpus-per-rank",
                                                 "--topology", "--nic"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int k;
        for (k = 0; k < 5 && strcmp(a, map_opt_names[k]) != 0; k++)
            ;
        if (k < 5 || !strcmp(a, "-n")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "faro_info: %s needs a value\n", a);
                return 2;
            }
            if (k < 5) {
                map_opt[k] = argv[++i];
            } else {
                char *end;
                long v = strtol(argv[++i], &end, 10);
                if (*end || v < 1 || v > 1000000) {
                    fprintf(stderr, "faro_info: -n %s: expected a number of ranks >= 1\n",
                            argv[i]);
                    return 2;
                }
                nranks = (int)v;
            }
        } else if (!strcmp(a, "--map"))
            map = 1;
        else if (!strcmp(a, "--all") || !strcmp(a, "-a"))
            all = 1;
        else if (!strcmp(a, "--tunables"))
            what |= SHOW_TUNABLES;
        else if (!strcmp(a, "--transports"))
            what |= SHOW_TRANSPORTS;
        else if (!strcmp(a, "--network"))
            what |= SHOW_NETWORK;
        else if (!strcmp(a, "--pmi"))
            what |= SHOW_PMI;
        else if (!strcmp(a, "--man"))
            man = 1;
        else if (!strcmp(a, "--coll"))
            coll = 1;
        else if (!strcmp(a, "--parsable"))
            parsable = 1;
        else if (!strcmp(a, "--prefix"))
            prefix = 1;
        else if (!strcmp(a, "--mpit"))
            mpit = 1;
        else if (!strcmp(a, "--gpu"))
            gpu = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
            printf("faro_info (Faro) %s\n", PACKAGE_VERSION);
            return 0;
        } else {
            fprintf(stderr, "faro_info: unknown option '%s'; allowed: --all, --tunables, "
                            "--transports, --network, --pmi, --man, --coll, --parsable, --prefix, --mpit, --gpu, "
                            "--map (with -n, --map-by, --bind-to, --cpus-per-rank, --topology, "
                            "--nic), --help, --version\n", a);
            return 2;
        }
    }
    if (man) {
        /* The page documents the table, not this environment: no load needed. */
        faro_tunables_man(stdout, PACKAGE_VERSION);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    char err[PATH_MAX + 256];
    if (prefix) {
        struct faro_info_paths p;
        if (faro_info_paths(&p, err, sizeof err) != 0) {
            faro_error("%s", err);
            return 1;
        }
        printf("%s\n", p.prefix);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (what == 0)
        what = SHOW_VERSION | SHOW_PMI | SHOW_TRANSPORTS | SHOW_NETWORK | SHOW_TUNABLES;

    if (faro_tunables_load(err, sizeof err) != 0) {
        faro_error("%s", err);
        return 1;
    }
    faro_log_level = (int)faro_tun_int(FARO_TUN_VERBOSE);
    /* The environment is judged as MPI_Init would judge it. */
    if (faro_tp_list_check(faro_tun_str(FARO_TUN_TRANSPORTS), err, sizeof err) != 0) {
        faro_error("%s", err);
        return 1;
    }
    /* A list that leaves two processes no transport fails as well; where the
     * transports are shown, after them (they say why each one is unusable). */
    char reach[sizeof err] = "";
    int show_tps = (what & SHOW_TRANSPORTS) || parsable;
    if (!mpit && !coll && !map && check_reach(faro_tun_str(FARO_TUN_TRANSPORTS), reach,
                                              sizeof reach) != 0 && !show_tps) {
        faro_error("%s", reach);
        return 1;
    }
    if (mpit) /* after the load: cvars read the environment as MPI_Init would */
        return faro_info_mpit();
    if (coll || all) {
        if (faro_coll_select_init(err, sizeof err) != 0) {
            faro_error("%s", err);
            return 1;
        }
    }
    if (coll) {
        faro_coll_print_algorithms(stdout);
        faro_coll_print_rules(stdout);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (map)
        return show_map(nranks, map_opt[0] ? map_opt[0] : faro_tun_str(FARO_TUN_MAP_BY),
                        map_opt[1] ? map_opt[1] : faro_tun_str(FARO_TUN_BIND_TO),
                        map_opt[2] ? map_opt[2] : faro_tun_str(FARO_TUN_CPUS_PER_RANK),
                        map_opt[3] ? map_opt[3] : faro_tun_str(FARO_TUN_TOPOLOGY),
                        map_opt[4] ? map_opt[4] : faro_tun_str(FARO_TUN_NIC));
    if (map_opt[0] || map_opt[1] || map_opt[2] || map_opt[3] || map_opt[4] || nranks) {
        fprintf(stderr, "faro_info: -n, --map-by, --bind-to, --cpus-per-rank, --topology and "
                        "--nic go with --map\n");
        return 2;
    }

    struct faro_info_paths paths;
    if ((what & SHOW_VERSION) || parsable || gpu) {
        if (faro_info_paths(&paths, err, sizeof err) != 0) {
            faro_error("%s", err);
            return 1;
        }
    }
    if (gpu)
        return show_gpu(&paths);
    if (parsable) {
        int rc = faro_info_parsable(&paths);
        return reach[0] ? (faro_error("%s", reach), 1) : rc;
    }
    if (what & SHOW_VERSION) {
        printf("Faro %s\n", PACKAGE_VERSION);
        printf("  prefix:        %s (from %s)\n", paths.prefix, paths.from);
        printf("  configured:    %s\n", FARO_CONFIGURE_ARGS[0] ? FARO_CONFIGURE_ARGS
                                                               : "(no arguments)");
        printf("  build options: %s\n", FARO_BUILD_OPTIONS);
        printf("  built with:    %s\n", FARO_BUILD_CC);
        printf("  Fortran:       %s\n", FARO_FORTRAN_NOTE);
#ifdef FARO_HAVE_GPU
        printf("  GPU offload:   %s; client library in %s\n\n", FARO_GPU_NOTE, paths.gpulibdir);
#else
        printf("  GPU offload:   %s\n\n", FARO_GPU_NOTE);
#endif
    }
    if (what & SHOW_PMI)
        show_pmi();
    fflush(stdout); /* keep order with anything a transport prints on stderr */
    if (what & SHOW_TRANSPORTS)
        show_transports();
    if (what & SHOW_NETWORK)
        show_network();
    if (what & SHOW_TUNABLES)
        show_tunables(all);
    if ((what & SHOW_TUNABLES) && all) {
        printf("\nCollective algorithms and selection (faro-coll(7)):\n");
        faro_coll_print_algorithms(stdout);
        faro_coll_print_rules(stdout);
    } else if (what & SHOW_TUNABLES) {
        printf("\nCollective algorithms and their selection rules: faro_info --coll\n");
    }
    if (reach[0]) {
        fflush(stdout);
        faro_error("%s", reach);
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
