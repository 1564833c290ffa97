/* Whether a program can be started (program.h). */
#include "config.h"

#include "base/program.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int runnable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int faro_program_check(const char *cmd, const char *dir, char *err, size_t errlen)
{
    char full[4096];
    struct stat st;
    if (strchr(cmd, '/')) {
        if (cmd[0] != '/' && dir && *dir)
            snprintf(full, sizeof full, "%s/%s", dir, cmd);
        else
            snprintf(full, sizeof full, "%s", cmd);
        if (stat(full, &st) < 0) {
            snprintf(err, errlen, "cannot run '%s': %s", cmd, strerror(errno));
            return 127;
        }
        if (!runnable(full)) {
            snprintf(err, errlen, "cannot run '%s': %s", cmd,
                     S_ISDIR(st.st_mode) ? "it is a directory"
                                         : "it is not executable (chmod +x?)");
            return 126;
        }
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(full, sizeof full, "%.*s/%s", (int)dlen, dlen ? p : ".", cmd);
        if (runnable(full))
            return 0;
        p += dlen + (colon ? 1 : 0);
        if (colon && !*p && runnable(cmd)) /* trailing ':' means cwd */
            return 0;
    }
    snprintf(err, errlen, "cannot run '%s': command not found in PATH (%s)", cmd, path);
    return 127;
}
