/*
 * pingpong: point-to-point latency and bandwidth between ranks 0 and 1
 * (other ranks idle), in the style of the Intel MPI Benchmarks tables.
 * Standard MPI C: builds with any MPI's mpicc.
 *
 *   PingPong  rank 0 sends, rank 1 sends back; t = half the round trip,
 *             Mbytes/sec = bytes / t.
 *   PingPing  both ranks send to each other at the same time (Isend + Recv
 *             + Wait); t = one iteration, Mbytes/sec = bytes / t.
 *
 * For each size (0, then powers of two from --min-size to --max-size) the
 * program runs a warm-up, then --rounds measurement rounds of `reps`
 * iterations each; t_min/t_max/t_avg are over the rounds (per-iteration
 * time of each round), and Mbytes/sec uses t_avg (1 Mbyte = 10^6 bytes).
 * Repetitions shrink with size: 16384 up to 4 KiB, then 64 MiB/size (a
 * round moves about 64 MiB), at least 20, all times --iters-scale.
 *
 * options: --bench pingpong|pingping|all   (default all)
 *          --min-size BYTES  --max-size BYTES (default 0 .. 4m; k/m/g ok)
 *          --iters-scale F   (default 1.0)  --rounds N (default 5)
 *          --csv             machine-readable: one line per size
 *          --datatype byte|contig|vector   (default byte) what a message is:
 *                    byte    n MPI_BYTEs
 *                    contig  one element of MPI_Type_contiguous(n, MPI_BYTE)
 *                    vector  MPI_Type_vector of n/B blocks of B bytes at a
 *                            stride of 2B (buffers twice the size); B is
 *                            --block BYTES (default 512, i.e. 64 doubles)
 *                    Bytes moved (and Mbytes/sec) are n in every case.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int dt_kind; /* 0 byte, 1 contig, 2 vector */
static size_t dt_block = 512;

static void die(const char *msg)
{
    if (rank == 0)
        fprintf(stderr, "pingpong: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        die("bad size (use e.g. 0, 4096, 64k, 4m)");
    switch (*end) {
    case 'k': case 'K': v *= 1024; break;
    case 'm': case 'M': v *= 1024 * 1024; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
    case '\0': break;
    default: die("bad size suffix (k, m or g)");
    }
    return (size_t)v;
}

static long reps_for(size_t n, double scale)
{
    /* about 64 MiB moved per round, so that a round lasts milliseconds */
    long r = (long)((64.0 * 1024 * 1024) / (double)(n > 4096 ? n : 4096));
    if (r < 20)
        r = 20;
    r = (long)(r * scale);
    return r < 2 ? 2 : r;
}

/* The message of n bytes as (count, type); *t is freed by the caller when
 * it is not MPI_BYTE. */
static int message_type(size_t n, MPI_Datatype *t)
{
    *t = MPI_BYTE;
    if (dt_kind == 0 || n == 0)
        return (int)n;
    if (dt_kind == 1) {
        MPI_Type_contiguous((int)n, MPI_BYTE, t);
    } else {
        size_t b = n < dt_block ? n : dt_block;
        MPI_Type_vector((int)(n / b), (int)b, (int)(2 * b), MPI_BYTE, t);
    }
    MPI_Type_commit(t);
    return 1;
}

/* one round of `reps` iterations; returns seconds per iteration */
static double run(int pingping, char *sbuf, char *rbuf, int n, MPI_Datatype dt, long reps)
{
    int peer = 1 - rank;
    double t0 = MPI_Wtime();
    for (long i = 0; i < reps; i++) {
        if (pingping) {
            MPI_Request req;
            MPI_Isend(sbuf, n, dt, peer, 1, MPI_COMM_WORLD, &req);
            MPI_Recv(rbuf, n, dt, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (rank == 0) {
            MPI_Send(sbuf, n, dt, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, n, dt, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, n, dt, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, n, dt, peer, 1, MPI_COMM_WORLD);
        }
    }
    double t = (MPI_Wtime() - t0) / (double)reps;
    return pingping ? t : t / 2;
}

static void bench(int pingping, size_t minsz, size_t maxsz, double scale, int rounds, int csv,
                  char *sbuf, char *rbuf)
{
    const char *name = pingping ? "PingPing" : "PingPong";
    if (rank == 0 && !csv) {
        printf("#---------------------------------------------------\n");
        printf("# Benchmark: %s\n", name);
        printf("# ranks 0 and 1 (of %d), %d rounds per size\n", size, rounds);
        printf("#---------------------------------------------------\n");
        printf("%12s %13s %12s %12s %12s %12s\n", "#bytes", "#repetitions", "t_min[usec]",
               "t_max[usec]", "t_avg[usec]", "Mbytes/sec");
    }
    size_t n = minsz;
    for (;;) {
        if (rank <= 1) {
            long reps = reps_for(n, scale);
            double tmin = 1e30, tmax = 0, tsum = 0;
            MPI_Datatype dt;
            int count = message_type(n, &dt);
            run(pingping, sbuf, rbuf, count, dt, reps / 10 + 2); /* warm-up */
            for (int r = 0; r < rounds; r++) {
                double t = run(pingping, sbuf, rbuf, count, dt, reps);
                tmin = t < tmin ? t : tmin;
                tmax = t > tmax ? t : tmax;
                tsum += t;
            }
            if (dt != MPI_BYTE)
                MPI_Type_free(&dt);
            double tavg = tsum / rounds;
            double mbs = tavg > 0 ? (double)n / tavg / 1e6 : 0;
            if (rank == 0) {
                if (csv)
                    printf("%s,%zu,%ld,%.3f,%.3f,%.3f,%.2f\n", name, n, reps, tmin * 1e6,
                           tmax * 1e6, tavg * 1e6, mbs);
                else
                    printf("%12zu %13ld %12.2f %12.2f %12.2f %12.2f\n", n, reps, tmin * 1e6,
                           tmax * 1e6, tavg * 1e6, mbs);
                fflush(stdout);
            }
        }
        if (n >= maxsz)
            break;
        size_t next = n == 0 ? 1 : n * 2;
        /* the sweep is 0, then powers of two; a non-power min-size doubles */
        n = next > maxsz ? maxsz : next;
    }
    if (rank == 0 && !csv)
        printf("\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t minsz = 0, maxsz = 4u << 20;
    double scale = 1.0;
    int rounds = 5, csv = 0, do_pp = 1, do_ppi = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--csv")) {
            csv = 1;
        } else if (!strcmp(a, "--bench") && v) {
            do_pp = !strcmp(v, "pingpong") || !strcmp(v, "all");
            do_ppi = !strcmp(v, "pingping") || !strcmp(v, "all");
            if (!do_pp && !do_ppi)
                die("--bench takes pingpong, pingping or all");
            i++;
        } else if (!strcmp(a, "--min-size") && v) {
            minsz = parse_size(v), i++;
        } else if (!strcmp(a, "--max-size") && v) {
            maxsz = parse_size(v), i++;
        } else if (!strcmp(a, "--iters-scale") && v) {
            scale = atof(v), i++;
            if (scale <= 0)
                die("--iters-scale must be > 0");
        } else if (!strcmp(a, "--datatype") && v) {
            if (!strcmp(v, "byte"))
                dt_kind = 0;
            else if (!strcmp(v, "contig"))
                dt_kind = 1;
            else if (!strcmp(v, "vector"))
                dt_kind = 2;
            else
                die("--datatype takes byte, contig or vector");
            i++;
        } else if (!strcmp(a, "--block") && v) {
            dt_block = parse_size(v), i++;
            if (dt_block == 0)
                die("--block must be > 0");
        } else if (!strcmp(a, "--rounds") && v) {
            rounds = atoi(v), i++;
            if (rounds < 1)
                die("--rounds must be >= 1");
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (rank == 0)
                printf("usage: pingpong [--bench pingpong|pingping|all] [--min-size N] "
                       "[--max-size N] [--iters-scale F] [--rounds N] [--csv]\n"
                       "                [--datatype byte|contig|vector] [--block BYTES]\n");
            MPI_Finalize();
            return 0;
        } else {
            die("unknown option (try --help)");
        }
    }
    if (size < 2)
        die("needs at least 2 ranks (ranks 0 and 1 measure, others idle)");
    if (minsz > maxsz)
        die("--min-size is larger than --max-size");
    if (maxsz > (size_t)0x7fffffff)
        die("--max-size must fit in an int count");

    char *sbuf = NULL, *rbuf = NULL;
    size_t bufsz = dt_kind == 2 ? 2 * maxsz : maxsz; /* a vector spans twice its bytes */
    if (rank <= 1) {
        sbuf = malloc(bufsz ? bufsz : 1);
        rbuf = malloc(bufsz ? bufsz : 1);
        if (!sbuf || !rbuf)
            die("out of memory");
        memset(sbuf, 'a' + rank, bufsz);
        memset(rbuf, 0, bufsz);
    }
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(lib, &len);
        lib[strcspn(lib, "\n")] = '\0';
        if (csv)
            printf("# library: %s\nbench,bytes,reps,t_min_us,t_max_us,t_avg_us,mbytes_per_sec\n", lib);
        else
            printf("# pingpong: %s\n# %d ranks, sizes %zu..%zu bytes, datatype %s\n\n", lib,
                   size, minsz, maxsz, dt_kind == 0 ? "byte" : dt_kind == 1 ? "contig" : "vector");
    }
    if (do_pp)
        bench(0, minsz, maxsz, scale, rounds, csv, sbuf, rbuf);
    if (do_ppi)
        bench(1, minsz, maxsz, scale, rounds, csv, sbuf, rbuf);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
