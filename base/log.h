/*
 * Messages on stderr, each prefixed with "faro: rank N: ". Used by every layer;
 * the level test is one load and compare, so a disabled debug line costs nothing.
 */
#ifndef FARO_LOG_H
#define FARO_LOG_H

extern int faro_log_level; /* FARO_VERBOSE, set at init */
extern int faro_log_rank;  /* -1 until the rank is known */

void faro_log_print(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "faro: rank N: trace: HH:MM:SS.uuuuuu " and the line: the time is taken
 * only here, inside faro_trace's branch. */
void faro_log_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define faro_error(...) faro_log_print("error", __VA_ARGS__)
#define faro_warn(...) faro_log_print("warning", __VA_ARGS__)
#define faro_info(lvl, ...) \
    do { if (faro_log_level >= (lvl)) faro_log_print("info", __VA_ARGS__); } while (0)
/* FARO_VERBOSE=3: one line per protocol step of every message, with its time
 * (slow). */
#define faro_trace(...) \
    do { if (__builtin_expect(faro_log_level >= 3, 0)) faro_log_trace(__VA_ARGS__); } while (0)

#endif
