/*
 * The hand-written part of the Fortran bindings: helpers the generated
 * faro_fortran.c calls (support.h says what each does). Errors go through
 * MPI_COMM_WORLD's error handler with a message of their own class
 * (MPI_Add_error_code), so MPI_ERRORS_RETURN keeps the program going.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fortran/support.h"

/* Longer than every MPI_MAX_* string (MPI_MAX_INFO_VAL is the longest). */
#define FARO_F_STRMAX 4096

void *faro_f08_buf(CFI_cdesc_t *d, int *noncontig)
{
    if (d->rank > 0 && d->base_addr && !CFI_is_contiguous(d))
        *noncontig = 1;
    return faro_f_buf(d->base_addr);
}

int faro_f_error(int cls, const char *fmt, const char *fn)
{
    int code;
    char msg[MPI_MAX_ERROR_STRING];
    snprintf(msg, sizeof msg, fmt, fn);
    if (MPI_Add_error_code(cls, &code) != MPI_SUCCESS ||
        MPI_Add_error_string(code, msg) != MPI_SUCCESS)
        code = cls;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    return code;
}

int faro_f_noncontig(const char *fn)
{
    return faro_f_error(MPI_ERR_BUFFER, "%s (mpi_f08): the buffer is a non-contiguous array "
                       "section; Faro needs contiguous buffers (MPI_SUBARRAYS_SUPPORTED is "
                       ".FALSE.): pass a contiguous copy", fn);
}

int faro_f_nomem(const char *fn)
{
    return faro_f_error(MPI_ERR_NO_MEM, "%s (Fortran binding): out of memory for the "
                       "converted handles or statuses", fn);
}

int faro_f_status_in(const MPI_Fint *f, MPI_Status *c)
{
    if (f == faro_status_ignore_ || f == faro_statuses_ignore_)
        return 1;
    memcpy(c, f, sizeof *c);
    return 0;
}

void faro_f_status_out(const MPI_Status *c, MPI_Fint *f)
{
    memcpy(f, c, sizeof *c);
}

MPI_Status *faro_f_statuses_in(const MPI_Fint *f, MPI_Fint n, int *nomem)
{
    if (f == faro_statuses_ignore_ || f == faro_status_ignore_)
        return MPI_STATUSES_IGNORE;
    MPI_Status *c = faro_f_alloc(n, sizeof *c, nomem);
    if (c && n > 0)
        memcpy(c, f, (size_t)n * sizeof *c);
    return c;
}

void faro_f_statuses_out(MPI_Status *c, MPI_Fint *f, MPI_Fint n)
{
    if (c == MPI_STATUSES_IGNORE)
        return;
    if (n > 0)
        memcpy(f, c, (size_t)n * sizeof *c);
    free(c);
}

size_t faro_f_cstr_len(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    return len;
}

char *faro_f_cstr(const char *f, size_t len)
{
    len = faro_f_cstr_len(f, len);
    char *c = malloc(len + 1);
    if (!c)
        return NULL;
    memcpy(c, f, len);
    c[len] = '\0';
    return c;
}

char *faro_f_strbuf(size_t len)
{
    return calloc(1, len + 1 > FARO_F_STRMAX ? len + 1 : FARO_F_STRMAX);
}

void faro_f_fstr(char *f, size_t len, char *c)
{
    if (c) {
        size_t n = strnlen(c, len);
        memcpy(f, c, n);
        memset(f + n, ' ', len - n);
    }
    free(c);
}

void *faro_f_alloc(MPI_Fint n, size_t size, int *nomem)
{
    void *p = malloc(n > 0 ? (size_t)n * size : 1);
    if (!p)
        *nomem = 1;
    return p;
}

int faro_f_comm_size(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if (inter)
        MPI_Comm_remote_size(comm, &n);
    else
        MPI_Comm_size(comm, &n);
    return n;
}

int faro_f_degree(MPI_Comm comm, int out)
{
    int topo = MPI_UNDEFINED, in = 0, outd = 0, weighted, rank;
    if (MPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    switch (topo) {
    case MPI_CART:
        MPI_Cartdim_get(comm, &in);
        return 2 * in;
    case MPI_GRAPH:
        MPI_Comm_rank(comm, &rank);
        MPI_Graph_neighbors_count(comm, rank, &in);
        return in;
    case MPI_DIST_GRAPH:
        MPI_Dist_graph_neighbors_count(comm, &in, &outd, &weighted);
        return out ? outd : in;
    }
    return 0;
}

void faro_f_predefined(MPI_Fint got, MPI_Fint want, const char *name)
{
    if (got == want)
        return;
    fprintf(stderr, "faro: the Fortran bindings number %s %d but it was converted to %d "
            "before they loaded (a C constructor converting predefined handles?): Fortran "
            "constants would name the wrong objects\n", name, want, got);
    abort();
}

MPI_Aint faro_f_attr_value(const char *fn, int keyval, void *v)
{
    if (strcmp(fn, "MPI_Comm_get_attr") == 0) {
        switch (keyval) {
        case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
        case MPI_UNIVERSE_SIZE: case MPI_APPNUM: case MPI_LASTUSEDCODE:
            return *(int *)v;
        }
    } else if (strcmp(fn, "MPI_Win_get_attr") == 0) {
        switch (keyval) {
        case MPI_WIN_BASE:
            return (MPI_Aint)v;
        case MPI_WIN_SIZE:
            return *(MPI_Aint *)v;
        case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
            return *(int *)v;
        }
    }
    return (MPI_Aint)v;
}
