#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int faro_log_level = 0;
int faro_log_rank = -1;

void faro_log_print(const char *kind, const char *fmt, ...)
{
    char line[1024];
    int n;
    if (faro_log_rank >= 0)
        n = snprintf(line, sizeof line, "faro: rank %d: %s: ", faro_log_rank, kind);
    else
        n = snprintf(line, sizeof line, "faro: %s: ", kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    if (len + 1 < sizeof line && (len == 0 || line[len - 1] != '\n')) {
        line[len++] = '\n';
        line[len] = 0;
    }
    fputs(line, stderr); /* one write per line, so ranks do not interleave mid-line */
    fflush(stderr);
}
