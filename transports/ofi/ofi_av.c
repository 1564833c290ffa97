/*
 * ofi transport: the address vector, one entry per distinct address.
 *
 * Endpoints come and go (a port connection per MPI_Comm_accept, a job rank
 * connected again after a disconnect), and several may lead to one process
 * (its job endpoint and its port connections). Inserting its address again
 * each time costs what the provider keeps per entry: the sockets provider a
 * TCP connection per entry (tests/mpi/dyn_cycles grew by two descriptors per
 * cycle), ofi_rxm a reference. So every address is inserted once and its
 * fi_addr found again here, by a hash of its bytes. Entries stay until
 * finalize (removing one is not safe: ofi_rxm closes the address's
 * connection on fi_av_remove while other inserts of it are in use).
 */
#include "config.h"

#include "ofi/ofi.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"

struct ofi_av_addr *ofi_av_get(faro_tp_t *tp, const uint8_t *name, size_t namelen, int create)
{
    unsigned b = (unsigned)(ofi_tag(name, namelen) % OFI_AV_BUCKETS);
    for (struct ofi_av_addr *e = tp->avhash[b]; e; e = e->next)
        if (e->namelen == namelen && !memcmp(e->name, name, namelen))
            return e;
    if (!create)
        return NULL;
    struct ofi_av_addr *e = calloc(1, sizeof *e + namelen);
    if (!e)
        return NULL;
    int n = fi_av_insert(tp->av, name, 1, &e->fiaddr, 0, NULL);
    if (n != 1) {
        faro_error("ofi: cannot insert an address into the address vector: %s",
                   n < 0 ? fi_strerror(-n) : "not inserted");
        free(e);
        return NULL;
    }
    e->namelen = namelen;
    memcpy(e->name, name, namelen);
    e->next = tp->avhash[b];
    tp->avhash[b] = e;
    return e;
}

void ofi_av_fini(faro_tp_t *tp)
{
    for (int b = 0; b < OFI_AV_BUCKETS; b++)
        while (tp->avhash[b]) {
            struct ofi_av_addr *e = tp->avhash[b];
            tp->avhash[b] = e->next;
            free(e);
        }
}
