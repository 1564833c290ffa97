#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int faro_log_level = 0;
int faro_log_rank = -1;

/* kind, and for a trace line the time (wall clock, microseconds: lines of
 * several ranks, even on several hosts, sort by it). */
static void log_vprint(const char *kind, int timed, const char *fmt, va_list ap)
{
    char line[1024], when[32] = "";
    if (timed) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        size_t w = strftime(when, sizeof when, " %H:%M:%S", &tm);
        snprintf(when + w, sizeof when - w, ".%06ld", ts.tv_nsec / 1000);
    }
    int n;
    if (faro_log_rank >= 0)
        n = snprintf(line, sizeof line, "faro: rank %d: %s:%s ", faro_log_rank, kind, when);
    else
        n = snprintf(line, sizeof line, "faro: %s:%s ", kind, when);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    size_t len = strlen(line);
    if (len + 1 < sizeof line && (len == 0 || line[len - 1] != '\n')) {
        line[len++] = '\n';
        line[len] = 0;
    }
    fputs(line, stderr); /* one write per line, so ranks do not interleave mid-line */
    fflush(stderr);
}

void faro_log_print(const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vprint(kind, 0, fmt, ap);
    va_end(ap);
}

void faro_log_trace(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vprint("trace", 1, fmt, ap);
    va_end(ap);
}
