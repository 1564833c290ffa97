/*
 * Where this Faro installation is, for faro_info --prefix, --parsable and its
 * version section. The rule is the wrappers' (tools/wrappers/wrapper.in): the
 * prefix is FARO_PREFIX when set, else the one this program's real location
 * implies (it sits where the installed bindir is below the prefix, so a copied
 * or moved installation answers with its own paths), else the one configure
 * was given. Directories configure put below its prefix move with the prefix;
 * others stay where configure put them. The configured directories come from
 * the Makefile (FARO_CONF_*), fully expanded.
 */
#include "config.h"
#include "faro_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* dst = dir moved from the configured prefix to `prefix` when below it. */
static void relocate(char *dst, size_t len, const char *dir, const char *prefix)
{
    size_t n = strlen(FARO_CONF_PREFIX);
    if (!strncmp(dir, FARO_CONF_PREFIX, n) && (dir[n] == '/' || dir[n] == '\0'))
        snprintf(dst, len, "%s%s", prefix, dir + n);
    else
        snprintf(dst, len, "%s", dir);
}

static int has_mpi_h(const char *prefix)
{
    char inc[PATH_MAX], h[PATH_MAX + 8];
    relocate(inc, sizeof inc, FARO_CONF_INCLUDEDIR, prefix);
    snprintf(h, sizeof h, "%s/mpi.h", inc);
    return access(h, R_OK) == 0;
}

/* The prefix implied by /proc/self/exe: its directory minus the bindir's path
 * below the configured prefix ("bin"), when it ends so and holds mpi.h. */
static int prefix_from_location(char *prefix, size_t len)
{
    size_t n = strlen(FARO_CONF_PREFIX);
    const char *bin_rel = FARO_CONF_BINDIR + n;
    if (strncmp(FARO_CONF_BINDIR, FARO_CONF_PREFIX, n) != 0 || *bin_rel != '/')
        return -1; /* bindir is not below the prefix: nothing to infer */
    char exe[PATH_MAX];
    ssize_t got = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (got <= 0)
        return -1;
    exe[got] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0'; /* exe is now the directory */
    size_t dl = strlen(exe), rl = strlen(bin_rel);
    if (dl < rl || strcmp(exe + dl - rl, bin_rel) != 0)
        return -1;
    exe[dl - rl] = '\0';
    if (!has_mpi_h(exe[0] ? exe : "/"))
        return -1;
    snprintf(prefix, len, "%s", exe[0] ? exe : "/");
    return 0;
}

int faro_info_paths(struct faro_info_paths *p, char *err, size_t errlen)
{
    const char *env = getenv("FARO_PREFIX");
    memset(p, 0, sizeof *p);
    if (env && *env) {
        snprintf(p->prefix, sizeof p->prefix, "%s", env);
        size_t n = strlen(p->prefix);
        while (n > 1 && p->prefix[n - 1] == '/')
            p->prefix[--n] = '\0';
        if (!has_mpi_h(p->prefix)) {
            snprintf(err, errlen, "FARO_PREFIX=%s holds no Faro installation (no mpi.h in its "
                     "include directory); it names the directory Faro was installed or "
                     "copied to", env);
            return -1;
        }
        p->from = "FARO_PREFIX";
    } else if (prefix_from_location(p->prefix, sizeof p->prefix) == 0) {
        p->from = "location";
    } else {
        snprintf(p->prefix, sizeof p->prefix, "%s", FARO_CONF_PREFIX);
        p->from = "configure";
    }
    relocate(p->bindir, sizeof p->bindir, FARO_CONF_BINDIR, p->prefix);
    relocate(p->libdir, sizeof p->libdir, FARO_CONF_LIBDIR, p->prefix);
    relocate(p->includedir, sizeof p->includedir, FARO_CONF_INCLUDEDIR, p->prefix);
    relocate(p->pkgconfigdir, sizeof p->pkgconfigdir, FARO_CONF_LIBDIR "/pkgconfig", p->prefix);
    relocate(p->mandir, sizeof p->mandir, FARO_CONF_MANDIR, p->prefix);
    relocate(p->datadir, sizeof p->datadir, FARO_CONF_PKGDATADIR, p->prefix);
    relocate(p->gpulibdir, sizeof p->gpulibdir, FARO_CONF_GPULIBDIR, p->prefix);
    return 0;
}
