/*
 * The GPU layer's key: what a client presents and a server demands (the
 * transport's port key). A key file must be private: a file others can read
 * is a key others have, so it is refused rather than used.
 */
#include "config.h"

#include "gpu/wire/channel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int key_take(const char *text, size_t len, const char *from, uint8_t *key,
                    size_t *keylen, char *err, size_t errlen)
{
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--;
    if (len == 0 || len > FARO_GPU_KEY_MAX) {
        snprintf(err, errlen, "the key in %s has %zu bytes (allowed: 1..%d, trailing newlines "
                 "not counted)", from, len, FARO_GPU_KEY_MAX);
        return -1;
    }
    memcpy(key, text, len);
    *keylen = len;
    return 0;
}

int faro_gpu_key_load(const char *file, const char *env_var, uint8_t *key, size_t *keylen,
                      char *err, size_t errlen)
{
    char buf[FARO_GPU_KEY_MAX + 3], from[300];
    struct stat st;

    if (!file || !*file) {
        const char *k = env_var ? getenv(env_var) : NULL;
        if (!k || !*k) {
            snprintf(err, errlen, "no key: give a key file (mode 0600)%s%s", 
                     env_var ? " or set " : "", env_var ? env_var : "");
            return -1;
        }
        snprintf(from, sizeof from, "%s", env_var);
        return key_take(k, strlen(k), from, key, keylen, err, errlen);
    }
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open key file %s: %s", file, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "key file %s is not a regular file", file);
        close(fd);
        return -1;
    }
    if ((st.st_mode & 077) || st.st_uid != geteuid()) {
        snprintf(err, errlen, "key file %s has mode %04o and owner uid %u: it must be "
                 "readable by its owner only (mode 0600 or 0400) and owned by this user "
                 "(uid %u); run: chmod 600 %s", file, (unsigned)(st.st_mode & 07777),
                 (unsigned)st.st_uid, (unsigned)geteuid(), file);
        close(fd);
        return -1;
    }
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n < 0) {
        snprintf(err, errlen, "cannot read key file %s: %s", file, strerror(errno));
        return -1;
    }
    snprintf(from, sizeof from, "key file %s", file);
    return key_take(buf, (size_t)n, from, key, keylen, err, errlen);
}
