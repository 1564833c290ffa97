/*
 * faro_info --parsable: what faro_info shows, as KEY:VALUE lines for scripts
 * (the way `ompi_info --parsable` does it). A key is colon-separated words
 * without spaces; the value is the rest of the line, colons included, with
 * newlines turned into "; ". The keys are listed in faro_info(1):
 *   version, package, mpi:version
 *   path:{prefix,prefix_source,bindir,libdir,includedir,pkgconfigdir,mandir,datadir}
 *   build:{configure,cc,options}
 *   transport:NAME:{built,not_built,usable,unusable,in_list,eager_limit,max_send}
 *   tunable:FARO_NAME:{value,default,set}
 */
#include "config.h"
#include "faro_info.h"
#include "base/tunables.h"
#include "mpi.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* One line: the key from a format, then the value with newlines flattened. */
static void kv(const char *value, const char *keyfmt, ...)
{
    va_list ap;
    va_start(ap, keyfmt);
    vprintf(keyfmt, ap);
    va_end(ap);
    putchar(':');
    for (const char *p = value; *p; p++) {
        if (*p == '\n') {
            if (p[1])
                fputs("; ", stdout);
        } else {
            putchar(*p);
        }
    }
    putchar('\n');
}

static void kv_ull(unsigned long long v, const char *keyfmt, const char *name)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", v);
    kv(buf, keyfmt, name);
}

static void transports(void)
{
    struct faro_info_probe_env pe;
    faro_info_probe_env_init(&pe);
    const char *allowed = faro_tun_str(FARO_TUN_TRANSPORTS);
    for (int i = 0; faro_transports[i]; i++) {
        const faro_tp_ops_t *ops = faro_transports[i];
        faro_tp_t *tp;
        faro_tp_attr_t attr;
        char why[4096];
        fflush(stdout); /* keep order with anything a transport prints on stderr */
        int rc = faro_info_probe(ops, &pe.env, &tp, &attr, why, sizeof why);
        kv("yes", "transport:%s:built", ops->name);
        kv(!strcmp(ops->name, "self") || faro_tp_list_pos(allowed, ops->name) >= 0 ? "yes" : "no",
           "transport:%s:in_list", ops->name);
        if (rc == FARO_TP_OK) {
            kv("yes", "transport:%s:usable", ops->name);
            kv_ull(attr.eager_limit, "transport:%s:eager_limit", ops->name);
            kv_ull(attr.max_send, "transport:%s:max_send", ops->name);
            ops->finalize(tp);
        } else {
            char reason[4200];
            if (rc == FARO_TP_UNAVAILABLE)
                snprintf(reason, sizeof reason, "%s", why[0] ? why : "(no reason given)");
            else
                snprintf(reason, sizeof reason, "init failed (%d)%s%s", rc, why[0] ? ": " : "",
                         why);
            kv("no", "transport:%s:usable", ops->name);
            kv(reason, "transport:%s:unusable", ops->name);
        }
    }
    for (int i = 0; faro_info_optional_tps[i].name; i++) {
        const struct faro_info_optional_tp *o = &faro_info_optional_tps[i];
        if (!o->not_built[0])
            continue; /* built: listed above */
        kv("no", "transport:%s:built", o->name);
        kv(o->not_built, "transport:%s:not_built", o->name);
    }
}

int faro_info_parsable(const struct faro_info_paths *paths)
{
    char mpiver[16];
    snprintf(mpiver, sizeof mpiver, "%d.%d", MPI_VERSION, MPI_SUBVERSION);
    kv(PACKAGE_VERSION, "version");
    kv("Faro " PACKAGE_VERSION, "package");
    kv(mpiver, "mpi:version");
    kv(paths->prefix, "path:prefix");
    kv(paths->from, "path:prefix_source");
    kv(paths->bindir, "path:bindir");
    kv(paths->libdir, "path:libdir");
    kv(paths->includedir, "path:includedir");
    kv(paths->pkgconfigdir, "path:pkgconfigdir");
    kv(paths->mandir, "path:mandir");
    kv(paths->datadir, "path:datadir");
    kv(FARO_CONFIGURE_ARGS, "build:configure");
    kv(FARO_BUILD_CC, "build:cc");
    kv(FARO_BUILD_OPTIONS, "build:options");
#ifdef FARO_HAVE_FORTRAN
    kv("yes", "bindings:fortran");
#else
    kv("no", "bindings:fortran");
#endif
    kv(FARO_FORTRAN_NOTE, "bindings:fortran:note");
#ifdef FARO_HAVE_GPU
    kv("yes", "gpu");
    kv(paths->gpulibdir, "path:gpulibdir");
#else
    kv("no", "gpu");
#endif
    kv(FARO_GPU_NOTE, "gpu:note");
    transports();
    for (int i = 0; i < FARO_TUN_COUNT; i++) {
        const struct faro_tunable_desc *d = &faro_tunable_table[i];
        kv(faro_tun_str((enum faro_tun_id)i), "tunable:%s:value", d->name);
        kv(d->def, "tunable:%s:default", d->name);
        kv(faro_tun_isset((enum faro_tun_id)i) ? "yes" : "no", "tunable:%s:set", d->name);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
