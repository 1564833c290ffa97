/*
 * Signal dispositions that libraries Faro links take over, given back.
 *
 * libinfinipath (Intel's QLogic PSM library, which Debian's libfabric links
 * for its psm provider) installs handlers for SIGINT, SIGILL, SIGABRT,
 * SIGBUS, SIGSEGV and SIGTERM when it is loaded, before main() runs, in
 * every program linked with Faro whether or not psm is ever used. Its
 * handler prints a backtrace and exits with code 1, so a rank that crashed
 * (SIGSEGV, an assert's SIGABRT) or was terminated was reported by any
 * launcher as "exited with code 1" instead of killed by its signal (exit
 * code 128 + N), and no core was dumped. libpsm2 does the same from its
 * initialisation (HFI_NO_BACKTRACE). Both honour an environment variable
 * (IPATH_NO_BACKTRACE, HFI_NO_BACKTRACE), which a program started by
 * another launcher does not have.
 *
 * So when libfaro is loaded (its constructor runs after those of the
 * libraries it depends on) and again at the end of MPI_Init (after the
 * transports initialised theirs), every signal whose handler lies in one of
 * those libraries goes back to its default action. A handler the program
 * installed is left alone: only the handler's own library is looked at.
 */
#include <dlfcn.h>
#include <signal.h>
#include <string.h>

#include "core.h"

static int taken_over(void *handler)
{
    static const char *const libs[] = {"libinfinipath.so", "libpsm2.so", "libpsm_infinipath.so"};
    Dl_info info;
    if (!dladdr(handler, &info) || !info.dli_fname)
        return 0;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (!strncmp(base, libs[i], strlen(libs[i])))
            return 1;
    return 0;
}

void faro_signals_restore(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sigaction(sig, NULL, &sa))
            continue;
        void *h = sa.sa_flags & SA_SIGINFO ? (void *)sa.sa_sigaction : (void *)sa.sa_handler;
        if (h == (void *)SIG_DFL || h == (void *)SIG_IGN || !taken_over(h))
            continue;
        sa.sa_handler = SIG_DFL;
        sa.sa_flags = 0;
        sigaction(sig, &sa, NULL);
    }
}

__attribute__((constructor)) static void restore_at_load(void)
{
    faro_signals_restore();
}
