/* The input as a stream: a pipe that holds all of it, closed at its end, for
 * harnesses of readers that take a file descriptor. */
#ifndef FARO_FUZZ_PIPE_H
#define FARO_FUZZ_PIPE_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/* The read end (close it), or -1 when the input does not fit a pipe's buffer. */
static inline int fuzz_pipe(const uint8_t *data, size_t size)
{
    int fd[2];
    if (size > 60000 || pipe(fd))
        return -1;
    if (write(fd[1], data, size) != (ssize_t)size) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    close(fd[1]); /* the end of the stream comes after the input */
    return fd[0];
}

#endif
