/*
 * Whether a program can be started, looked up as execvp will look it up:
 * shared by mpiexec (its programs, and the jobs it spawns here) and the
 * library (MPI_Comm_spawn under a process manager that would start a
 * missing program and never say so: base/pmi.c).
 */
#ifndef FARO_PROGRAM_H
#define FARO_PROGRAM_H

#include <stddef.h>

/* Can cmd be run from directory dir (NULL: here)? A name with a '/' is a
 * path (a relative one from dir), a bare name is looked up in PATH. 0, or
 * the exit code a shell would give (127: not there, 126: there but it
 * cannot run) with "cannot run 'cmd': why" in err. */
int faro_program_check(const char *cmd, const char *dir, char *err, size_t errlen);

#endif
