/* What faro_info's parts share: where the installation is (paths.c), the
 * probe of one transport as MPI_Init would do it (faro_info.c), and the
 * parsable output (parsable.c). */
#ifndef FARO_INFO_H
#define FARO_INFO_H

#include <limits.h>
#include <stddef.h>

#include "transport.h"

/* The installation's directories. prefix comes from FARO_PREFIX, else from
 * where this program really is (the installed bindir's place below the
 * prefix), else from configure; `from` says which ("FARO_PREFIX", "location",
 * "configure"). Directories configure put below its prefix move with it. */
struct faro_info_paths {
    const char *from;
    char prefix[PATH_MAX];
    char bindir[PATH_MAX];
    char libdir[PATH_MAX];
    char includedir[PATH_MAX];
    char pkgconfigdir[PATH_MAX];
    char mandir[PATH_MAX];
    char datadir[PATH_MAX]; /* Faro's own: the topology models live here */
    char gpulibdir[PATH_MAX]; /* the GPU client library (libcudart.so.13), apart */
};

/* Fills *p; -1 with a message in err when FARO_PREFIX names no Faro
 * installation (no include/mpi.h there), as mpicc refuses it too. */
int faro_info_paths(struct faro_info_paths *p, char *err, size_t errlen);

/* A singleton environment for probing transports; the storage lives in *s. */
struct faro_info_probe_env {
    faro_tp_env_t env;
    char jobid[64];
    unsigned char key[16];
    int node_of[1], local_ranks[1];
};
void faro_info_probe_env_init(struct faro_info_probe_env *s);

/* Start one transport as MPI_Init would for a singleton (init, wireup_done).
 * Returns FARO_TP_OK with *tp and *attr set (finalize it after use), or the
 * failure with the reason in why. */
int faro_info_probe(const faro_tp_ops_t *ops, faro_tp_env_t *env, faro_tp_t **tp,
                    faro_tp_attr_t *attr, char *why, size_t whylen);

/* The transports Faro knows but may not have built, with configure's reason
 * (empty when built). */
struct faro_info_optional_tp {
    const char *name;
    const char *not_built;
};
extern const struct faro_info_optional_tp faro_info_optional_tps[];

/* --parsable: everything as KEY:VALUE lines (faro_info(1) lists the keys). */
int faro_info_parsable(const struct faro_info_paths *paths);

/* faro_info --mpit (mpit.c): the MPI_T variables by category. */
int faro_info_mpit(void);

#endif
