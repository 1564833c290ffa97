/* What mpiexec says about its options: the help text and the table of every
 * option with its spellings and the words it takes (options.c parses with
 * it). */
#include "config.h"

#include "mpiexec.h"

#include <stdio.h>
#include <string.h>

const char mpx_usage[] =
    "Usage: mpiexec [options] program [arguments...]\n"
    "       mpiexec [options] [-n N] [-x ...] program [args] : [-n N] program [args] ...\n"
    "       mpiexec [options] -configfile FILE\n"
    "       mpirun  [options] program [arguments...]\n"
    "\n"
    "Start N copies of program as the ranks of one Faro (or other PMI-1) job, on this\n"
    "machine or on the hosts given. Several programs separated by ':' (MPMD) form\n"
    "one job: their ranks come in order and MPI_APPNUM numbers the programs.\n"
    "\n"
    "Options (-n, -x, -env and -wdir belong to the program they precede):\n"
    "  -n N, -np N          number of ranks (default: the slots of the hosts, else 1)\n"
    "  -x VAR               pass VAR from this environment to the ranks\n"
    "  -x VAR=VALUE         set VAR to VALUE in the ranks\n"
    "  -env VAR VALUE       set VAR to VALUE in the ranks (also -env VAR=VALUE)\n"
    "  -genv VAR VALUE      set VAR to VALUE in the ranks of every program (also\n"
    "                       -genv VAR=VALUE)\n"
    "  -configfile FILE     the programs from FILE, one a line with its options, '#'\n"
    "                       comments (also --app, Open MPI's appfile)\n"
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
    "                       followed by :span or :pack (sets FARO_MAP_BY); or\n"
    "                       ppr:N:socket|numa|l3cache|core, N ranks per resource on\n"
    "                       each host (needs -n; hosts get ranks by slots or -ppn)\n"
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
    "  -outfile-pattern P   write each rank's stdout into its own file P (%r rank,\n"
    "                       %h host), on the rank's host; -errfile-pattern: stderr\n"
    "  --output-filename D  write each rank's stdout and stderr into D/1/rank.N/ as\n"
    "                       well (D:nocopy: only there)\n"
    "  --timestamp-output   start every output line with the time it was read\n"
    "  --hang-report S      ranks blocked S seconds in MPI report what they wait for;\n"
    "                       when all are, mpiexec prints who waits for whom and ends\n"
    "                       a deadlocked job (exit 1); also at --timeout and on\n"
    "                       SIGUSR1 to mpiexec (faro-debug(7))\n"
    "  --display-map        print which host runs which ranks before starting them\n"
    "  -h, --help           show this help\n"
    "  -V, --version        show the version\n"
    "  --                   end of options\n"
    "\n"
    "Exit code: 0 when every rank succeeded; else the exit code of the first rank\n"
    "that failed (128+N when killed by signal N, 1 when it exited without\n"
    "MPI_Finalize), the code given to MPI_Abort, 124 on timeout, 255 when a host\n"
    "was lost, 127 when the program cannot be found, 2 for a usage error. See\n"
    "mpiexec(1).\n";

/* Every option mpiexec takes (mpiexec.h says why there is one table). */
static const struct mpx_opt_spec opt_table[] = {
    { "-n -np --np --n", 1, 0 },
    { "-x", 1, 0 },
    { "-env --env", MPX_OPT_ENV, 0 },
    { "-genv --genv", MPX_OPT_ENV, 0 },
    { "-configfile --configfile --app -app", 1, 0 },
    { "-envall --envall -genvall", 0, 0 },
    { "-envnone --envnone -genvnone", 0, 0 },
    { "-envlist --envlist -genvlist", 1, 0 },
    { "-wdir --wdir -wd --wd", 1, 0 },
    { "-l --tag-output -tag-output -prepend-rank", 0, 0 },
    { "--tag-host -tag-host", 0, 0 },
    { "-prepend-pattern", 1, 0 },
    { "--timeout -timeout", 1, 0 },
    { "--exec-prefix", 1, 0 },
    { "-v --verbose", 0, 0 },
    { "-usize --usize", 1, 0 },
    { "-hosts --hosts -host --host -H", 1, 0 },
    { "-f -hostfile --hostfile -machinefile --machinefile", 1, 0 },
    { "-ppn --ppn -npernode --npernode", 1, 0 },
    { "-launcher --launcher -bootstrap", 1, 0 },
    { "-launcher-exec --launcher-exec -bootstrap-exec", 1, 0 },
    { "--tree-width", 1, 0 },
    { "--heartbeat", 1, 0 },
    { "--proxy-path", 1, 0 },
    { "--map-by -map-by", 1, 0 },
    { "--bind-to -bind-to", 1, 0 },
    { "--cpus-per-rank -cpus-per-rank", 1, 0 },
    { "--report-bindings -report-bindings", 0, 0 },
    { "--topology -topology", 1, 0 },
    { "--dry-run -dry-run", 0, 0 },
    { "--oversubscribe -oversubscribe", 0, 0 },
    { "--allow-run-as-root -allow-run-as-root", 0, 0 },
    { "-outfile-pattern", 1, 0 },
    { "-errfile-pattern", 1, 0 },
    { "--output-filename -output-filename", 1, 0 },
    { "--timestamp-output -timestamp-output", 0, 0 },
    { "--hang-report -hang-report", 1, 0 },
    { "--display-map -display-map", 0, 0 },
    { "-h --help -help", 0, 0 },
    { "-V --version -version", 0, 0 },
    { "--mca -mca --gmca -gmca", 2, 1 }, /* Open MPI's: refused, naming Faro's equivalent */
    { "--faro-spawned-job", 1, 1 },      /* between mpiexecs (subjob.c) */
};

const struct mpx_opt_spec *mpx_opt_find(const char *a)
{
    size_t len = strlen(a);
    for (size_t i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++)
        for (const char *n = opt_table[i].names; *n;) {
            size_t w = strcspn(n, " ");
            if (w == len && !strncmp(n, a, len))
                return &opt_table[i];
            n += w + (n[w] == ' ');
        }
    return NULL;
}

int mpx_opt_words(const struct mpx_opt_spec *sp, const char *next)
{
    if (sp->words == MPX_OPT_ENV)
        return next && strchr(next, '=') ? 1 : 2;
    return sp->words;
}

/* The options the unknown-option error lists: every listed spelling. */
void mpx_opt_print_valid(FILE *f)
{
    for (size_t i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++)
        for (const char *n = opt_table[i].names; *n && !opt_table[i].hidden;) {
            size_t w = strcspn(n, " ");
            fprintf(f, "%.*s, ", (int)w, n);
            n += w + (n[w] == ' ');
        }
    fputs("--\n", f);
}
