/* The faro-tunables(7) page and range phrases, written from the tunables table. */
#ifndef FARO_MAN_TUNABLES_H
#define FARO_MAN_TUNABLES_H

#include <stdio.h>

struct faro_tunable_desc;

/* Write the whole faro-tunables(7) page in roff. */
void faro_tunables_man(FILE *out, const char *version);

/* Write the allowed values of one tunable ("size, 0 to 1024 bytes"); roff=1
 * escapes them for a man page. */
void faro_tun_describe_range(FILE *out, const struct faro_tunable_desc *d, int roff);

#endif
