/*
 * io: collective write and read of an interleaved pattern, the case
 * two-phase collective buffering exists for. Every rank owns every P-th
 * block of BLOCK bytes (rank r's block k at (k*P + r)*BLOCK), seen through a
 * vector view; MPI_File_write_all then MPI_File_read_all move PER_RANK bytes
 * per rank. Each repetition writes a fresh file (after a delete), syncs, then
 * reads it back and checks every byte; the median time of the repetitions is
 * printed with the bandwidth (all ranks' bytes / time).
 *
 * Standard MPI C: builds unchanged with Faro's, Open MPI's and MPICH's mpicc.
 *   mpiexec -n 4 perf/io [--dir DIR] [--per-rank BYTES] [--block BYTES] [--reps N]
 *           [--hint key=value ...]
 * The file is DIR/faro-perf-io-<pid> (DIR: $TMPDIR, else /tmp); it is removed.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static unsigned char pat(long i, int r)
{
    return (unsigned char)(i * 131 + r * 7 + (i >> 9));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long per = 1 << 20, block = 4096;
    int reps = 7;
    const char *dir = getenv("TMPDIR");
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--per-rank") && i + 1 < argc)
            per = atol(argv[++i]);
        else if (!strcmp(argv[i], "--block") && i + 1 < argc)
            block = atol(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--hint") && i + 1 < argc) {
            char kv[256];
            snprintf(kv, sizeof kv, "%s", argv[++i]);
            char *eq = strchr(kv, '=');
            if (eq) {
                *eq = '\0';
                MPI_Info_set(info, kv, eq + 1);
            }
        } else {
            if (r == 0)
                fprintf(stderr, "io: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!dir || !*dir)
        dir = "/tmp";
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    char path[1024];
    snprintf(path, sizeof path, "%s/faro-perf-io-%ld", dir, pid);
    long nblk = per / block;
    MPI_Datatype vec, ft;
    MPI_Type_vector((int)nblk, (int)block, (int)(block * P), MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(nblk * block * P), &ft);
    MPI_Type_commit(&ft);
    unsigned char *buf = malloc((size_t)per), *back = malloc((size_t)per);
    for (long i = 0; i < per; i++)
        buf[i] = pat(i, r);
    double *tw = malloc(sizeof(double) * (size_t)reps), *tr = malloc(sizeof(double) * (size_t)reps);
    int bad = 0;
    for (int k = 0; k < reps; k++) {
        MPI_File fh;
        if (r == 0)
            MPI_File_delete(path, MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
        MPI_File_set_view(fh, (MPI_Offset)(r * block), MPI_BYTE, ft, "native", info);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_File_write_all(fh, buf, (int)per, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);
        memset(back, 0, (size_t)per);
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        MPI_File_read_at_all(fh, 0, back, (int)per, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        double t3 = MPI_Wtime();
        bad |= memcmp(buf, back, (size_t)per) != 0;
        MPI_File_close(&fh);
        tw[k] = t1 - t0;
        tr[k] = t3 - t2;
    }
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (r == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        qsort(tw, (size_t)reps, sizeof *tw, cmp);
        qsort(tr, (size_t)reps, sizeof *tr, cmp);
        double mw = tw[reps / 2], mr = tr[reps / 2], mb = (double)per * P / 1e6;
        printf("ranks %d, %ld bytes per rank in %ld-byte interleaved blocks, %d reps%s\n", P,
               per, block, reps, anybad ? " (DATA MISMATCH)" : "");
        printf("write_all median %.3f ms (%.1f MB/s), read_at_all median %.3f ms (%.1f MB/s)\n",
               mw * 1e3, mb / mw, mr * 1e3, mb / mr);
    }
    free(buf), free(back), free(tw), free(tr);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    MPI_Finalize();
    return anybad;
}
