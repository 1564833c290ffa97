/*
 * Intercommunicators: MPI_Intercomm_create, MPI_Intercomm_merge,
 * MPI_Comm_remote_size, MPI_Comm_remote_group, and the intercommunicator
 * forms of MPI_Comm_split (and split_type) and MPI_Comm_create (MPI-2.2
 * semantics).
 *
 * An intercommunicator is a struct faro_comm with inter set: rank, size and
 * world[] describe the local group, remote_size and remote_world[] the remote
 * group, whose ranks point-to-point names. Both groups share one context id,
 * agreed over every member of both (context.c); a message on that context can
 * only come from the other group, so the sender's local rank in the wire
 * header is already the receiver's MPI_SOURCE. Each side also keeps a private
 * intracommunicator over its local group (its own context id) for the local
 * steps of collectives (coll/inter*.c).
 *
 * The leaders exchange group descriptions point-to-point on the peer
 * communicator with internal tags FARO_TAG_INTER_BASE - 1 - (tag % 98), so
 * that the program's tag separates concurrent creations; dup and merge
 * exchange on the intercommunicator itself with FARO_TAG_INTER_BASE.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "objects/port.h"

#define CHECK_COMM(fn, c)                                                                     \
    do {                                                                                      \
        if (faro_comm_check(c))                                                               \
            return faro_comm_bad(fn, c);                                                      \
    } while (0)

static int no_mem(const char *fn, MPI_Comm comm)
{
    return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

int faro_comm_intra_only(const char *fn, MPI_Comm comm, int errclass)
{
    if (!comm->inter)
        return MPI_SUCCESS;
    if (errclass == MPI_ERR_UNSUPPORTED_OPERATION)
        return faro_err(comm, errclass,
                        "%s: intercommunicators are not supported by this call in Faro yet "
                        "(merge with MPI_Intercomm_merge, or use the intracommunicator the "
                        "intercommunicator was created from)", fn);
    return faro_err(comm, errclass,
                    "%s: the communicator is an intercommunicator (this call takes an "
                    "intracommunicator)", fn);
}

int faro_leader_failed(const char *fn, MPI_Comm comm, int code, int leader)
{
    int cls = MPI_ERR_OTHER;
    if (PMPI_Error_class(code, &cls) != MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    return faro_err(comm, cls,
                    "%s: the group's leader (local rank %d) failed with error class %d (its "
                    "message says why)", fn, leader, cls);
}

/* A malloc'd copy of c's job ranks (one spare slot, so size 0 is not NULL). */
static int *world_copy(MPI_Comm c)
{
    int *w = malloc(((size_t)c->size + 1) * sizeof(int));
    if (w)
        for (int r = 0; r < c->size; r++)
            w[r] = c->world ? c->world[r] : r;
    return w;
}

int faro_inter_make_local(MPI_Comm inter, uint32_t lctx)
{
    int *w = world_copy(inter);
    inter->local = w ? faro_comm_new(inter, lctx, inter->size, w, inter->rank) : NULL;
    if (!inter->local) {
        free(w);
        faro_ctx_release(lctx);
        return -1;
    }
    strcpy(inter->local->name, "intercommunicator local group");
    return 0;
}

int faro_inter_new(const char *fn, MPI_Comm parent_local, const uint32_t ids[2], int ln,
                      int *lw, int rank, int rn, int *rw, MPI_Comm *out)
{
    MPI_Comm c = faro_comm_new(parent_local, ids[0], ln, lw, rank);
    if (!c) {
        free(lw);
        free(rw);
        faro_ctx_release(ids[0]);
        faro_ctx_release(ids[1]);
        return no_mem(fn, parent_local);
    }
    c->inter = 1;
    c->remote_size = rn;
    c->remote_world = rw;
    if (faro_inter_make_local(c, ids[1])) {
        faro_comm_destroy(c);
        return no_mem(fn, parent_local);
    }
    *out = c;
    return MPI_SUCCESS;
}

/* The two groups may belong to different jobs (a spawned job and its
 * parents) whose processes have not all met: each leader gathers its group's
 * descriptors (dynconn.c), the leaders swap them over peer_comm, and every
 * member makes the other group's rn processes peers (dynpeer.c), as
 * MPI_Comm_accept does. 0, or an error raised on local_comm; *bad when only
 * this member failed (it still votes in the agreement, as a refusal). */
static int meet_other_job(const char *fn, MPI_Comm local_comm, int local_leader,
                          MPI_Comm peer_comm, int remote_leader, int itag, int rn, int *bad)
{
    int leader = local_comm->rank == local_leader, cls = 0;
    uint8_t *mine = NULL, *theirs = NULL;
    uint32_t bmine = 0;
    char err[600] = "";
    int rc = faro_dyn_gather(fn, local_comm, local_leader, &mine, &bmine, &cls, err, sizeof err);
    /* the outcome at the leader: {error class, their bytes}; a class here
     * travels to the other leader too, so both give up */
    int out[2] = {0, 0}, code = MPI_SUCCESS;
    if (!rc && leader) {
        int hm[2] = {cls, (int)bmine}, ht[2] = {0, 0};
        code = faro_coll_sendrecv(fn, hm, 2, MPI_INT, remote_leader, ht, 2, MPI_INT,
                                  remote_leader, itag, peer_comm, MPI_STATUS_IGNORE);
        if (!code && (cls || ht[0]))
            code = faro_err(local_comm, cls ? cls : ht[0], "%s: %s", fn, cls ? err :
                            "a process of the other group has no transport with ports");
        if (!code && !(theirs = malloc((size_t)ht[1] + 1)))
            code = no_mem(fn, local_comm);
        if (!code)
            code = faro_coll_sendrecv(fn, mine, (int)bmine, MPI_BYTE, remote_leader, theirs,
                                      ht[1], MPI_BYTE, remote_leader, itag, peer_comm,
                                      MPI_STATUS_IGNORE);
        if (code && PMPI_Error_class(code, &out[0]) != MPI_SUCCESS)
            out[0] = MPI_ERR_OTHER;
        out[1] = ht[1];
    }
    free(mine);
    if (!rc)
        rc = PMPI_Bcast(out, 2, MPI_INT, local_leader, local_comm);
    if (!rc && out[0])
        rc = leader ? code : faro_leader_failed(fn, local_comm, code, local_leader);
    if (!rc && !leader && !(theirs = malloc((size_t)out[1] + 1)))
        rc = no_mem(fn, local_comm);
    if (!rc)
        rc = PMPI_Bcast(theirs, out[1], MPI_BYTE, local_leader, local_comm);
    size_t at = 0, used;
    for (int i = 0; !rc && !*bad && i < rn; i++, at += used)
        *bad = faro_dyn_add(theirs + at, (size_t)out[1] - at, &used, err, sizeof err) < 0;
    free(theirs);
    return rc;
}

/* Do the gpids name processes of more than one job? (The same answer in
 * both groups: they see the same union.) */
static int several_jobs(const uint64_t *a, int na, const uint64_t *b, int nb)
{
    uint64_t uid = a[0] >> FARO_GPID_RANK_BITS;
    for (int i = 0; i < na + nb; i++)
        if ((i < na ? a[i] : b[i - na]) >> FARO_GPID_RANK_BITS != uid)
            return 1;
    return 0;
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    FARO_LOCKED; /* objects and context ids are shared with other threads */
    static const char fn[] = "MPI_Intercomm_create";
    CHECK_COMM(fn, local_comm);
    int rc = faro_comm_intra_only(fn, local_comm, MPI_ERR_COMM);
    if (rc)
        return rc;
    if (!newintercomm)
        return faro_err(local_comm, MPI_ERR_ARG, "%s: newintercomm pointer is NULL", fn);
    if (local_leader < 0 || local_leader >= local_comm->size)
        return faro_err(local_comm, MPI_ERR_RANK,
                        "%s: local_leader %d is invalid (local_comm size %d: 0..%d)", fn,
                        local_leader, local_comm->size, local_comm->size - 1);
    if (tag < 0 || tag > FARO_TAG_UB)
        return faro_err(local_comm, MPI_ERR_TAG, "%s: tag %d is invalid (0..MPI_TAG_UB=%d)", fn,
                        tag, FARO_TAG_UB);
    int leader = local_comm->rank == local_leader;
    int itag = FARO_TAG_INTER_BASE - 1 - tag % 98;
    int ln = local_comm->size;
    int *lw = world_copy(local_comm);
    /* Members travel as gpids: peer_comm may join two jobs (a spawned one
     * and its parents), whose peer indexes mean nothing to each other. */
    uint64_t *lg = malloc(((size_t)ln + 1) * sizeof *lg), *rg = NULL;
    if (!lw || !lg) {
        free(lw);
        free(lg);
        return no_mem(fn, local_comm);
    }
    for (int i = 0; i < ln; i++)
        lg[i] = faro.pinfo[lw[i]].gpid;

    /* the leader learns the remote group; -1: the leader's arguments were bad */
    int hdr[2] = {0, MPI_SUCCESS}; /* remote size, the leader's error code */
    int *rw = NULL;
    if (leader) {
        if (faro_comm_check(peer_comm))
            hdr[1] = faro_comm_bad(fn, peer_comm);
        else if (remote_leader < 0 || remote_leader >= faro_comm_peer_size(peer_comm))
            hdr[1] = faro_err(local_comm, MPI_ERR_RANK,
                              "%s: remote_leader %d is invalid (peer_comm size %d: 0..%d)", fn,
                              remote_leader, faro_comm_peer_size(peer_comm),
                              faro_comm_peer_size(peer_comm) - 1);
        if (!hdr[1])
            hdr[1] = faro_coll_sendrecv(fn, &ln, 1, MPI_INT, remote_leader, &hdr[0], 1, MPI_INT,
                                        remote_leader, itag, peer_comm, MPI_STATUS_IGNORE);
        if (!hdr[1] && !(rg = malloc(((size_t)hdr[0] + 1) * sizeof *rg)))
            hdr[1] = no_mem(fn, local_comm);
        if (!hdr[1])
            hdr[1] = faro_coll_sendrecv(fn, lg, 8 * ln, MPI_BYTE, remote_leader, rg,
                                        8 * hdr[0], MPI_BYTE, remote_leader, itag, peer_comm,
                                        MPI_STATUS_IGNORE);
    }
    rc = PMPI_Bcast(hdr, 2, MPI_INT, local_leader, local_comm);
    if (!rc && hdr[1])
        rc = leader ? hdr[1] : faro_leader_failed(fn, local_comm, hdr[1], local_leader);
    if (!rc && !leader && !(rg = malloc(((size_t)hdr[0] + 1) * sizeof *rg)))
        rc = no_mem(fn, local_comm);
    if (!rc)
        rc = PMPI_Bcast(rg, 8 * hdr[0], MPI_BYTE, local_leader, local_comm);
    if (!rc && !(rw = malloc(((size_t)hdr[0] + 1) * sizeof(int))))
        rc = no_mem(fn, local_comm);
    int rn = hdr[0], unknown = -1, bad = 0;
    if (!rc && several_jobs(lg, ln, rg, rn))
        rc = meet_other_job(fn, local_comm, local_leader, peer_comm, remote_leader, itag, rn,
                            &bad);
    free(lg);
    if (rc) {
        free(lw);
        free(rg);
        free(rw);
        return rc;
    }
    for (int i = 0; i < rn; i++)
        if ((rw[i] = faro_peer_by_gpid(rg[i], 0)) < 0 && unknown < 0)
            unknown = i;
    free(rg);
    /* the groups must be disjoint: every member sees both lists, so all agree */
    for (int i = 0; i < rn; i++)
        if (rw[i] == lw[local_comm->rank]) {
            free(lw);
            free(rw);
            return faro_err(local_comm, MPI_ERR_COMM,
                            "%s: this process (job rank %d) is in both the local and the "
                            "remote group (the groups must be disjoint)", fn, rw[i]);
        }
    /* the ids of the intercommunicator and of its local communicator, over
     * both groups: each over its local_comm, the leaders bridge on peer_comm */
    struct faro_ctx_spec s = {.fn = fn, .tree = local_comm, .root = local_leader, .n = ln,
                              .me = (local_comm->rank - local_leader + ln) % ln,
                              .tag = faro_ctx_tag(local_comm), .take = unknown < 0 && !bad,
                              .want = 2};
    if (leader) {
        s.bridge = peer_comm;
        s.bridge_rank = remote_leader;
        s.bridge_tag = itag;
    }
    uint32_t ids[2];
    rc = faro_ctx_agree_spec(&s, ids); /* one member that cannot take part fails it for all */
    if (rc || unknown >= 0 || bad) {
        free(lw);
        free(rw);
        return rc ? rc : faro_err(local_comm, MPI_ERR_OTHER, "%s: %s", fn, bad ?
                                  "a process of the other job could not be added here (out "
                                  "of memory, or no room for more peers)" :
                                  "a process of the remote group is unknown here");
    }
    return faro_inter_new(fn, local_comm, ids, ln, lw, local_comm->rank, rn, rw, newintercomm);
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    FARO_LOCKED; /* objects and context ids are shared with other threads */
    static const char fn[] = "MPI_Intercomm_merge";
    CHECK_COMM(fn, intercomm);
    if (!intercomm->inter)
        return faro_err(intercomm, MPI_ERR_COMM,
                        "%s: the communicator is not an intercommunicator", fn);
    if (!newintracomm)
        return faro_err(intercomm, MPI_ERR_ARG, "%s: newintracomm pointer is NULL", fn);
    MPI_Comm local = intercomm->local;
    /* the leaders' high flags decide the order; equal flags: the group whose
     * leader has the lower gpid goes first (job ranks are this process's
     * numbering: the other group may be another job's, peers.c) */
    int flags[2] = {high != 0, 0};
    int rc = MPI_SUCCESS;
    if (intercomm->rank == 0)
        rc = faro_coll_sendrecv(fn, &flags[0], 1, MPI_INT, 0, &flags[1], 1, MPI_INT, 0,
                                FARO_TAG_INTER_BASE, intercomm, MPI_STATUS_IGNORE);
    if (!rc)
        rc = PMPI_Bcast(flags, 2, MPI_INT, 0, local);
    if (rc)
        return rc;
    int first = flags[0] != flags[1] ? !flags[0]
                                     : faro.pinfo[intercomm->world[0]].gpid <
                                           faro.pinfo[intercomm->remote_world[0]].gpid;
    int ln = intercomm->size, rn = intercomm->remote_size;
    int *w = malloc(((size_t)ln + (size_t)rn + 1) * sizeof(int));
    if (!w)
        return no_mem(fn, intercomm);
    memcpy(first ? w : w + rn, intercomm->world, (size_t)ln * sizeof(int));
    memcpy(first ? w + ln : w, intercomm->remote_world, (size_t)rn * sizeof(int));
    uint32_t ctx;
    rc = faro_ctx_agree(fn, intercomm, 1, &ctx); /* over both groups */
    if (rc) {
        free(w);
        return rc;
    }
    MPI_Comm c = faro_comm_new(intercomm, ctx, ln + rn, w, first ? intercomm->rank
                                                                 : rn + intercomm->rank);
    if (!c) {
        free(w);
        faro_ctx_release(ctx);
        return no_mem(fn, intercomm);
    }
    *newintracomm = c;
    return MPI_SUCCESS;
}

static int check_inter(const char *fn, MPI_Comm comm)
{
    if (!comm->inter)
        return faro_err(comm, MPI_ERR_COMM,
                        "%s: the communicator is not an intercommunicator (MPI_Comm_test_inter "
                        "tells)", fn);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char fn[] = "MPI_Comm_remote_size";
    CHECK_COMM(fn, comm);
    int rc = check_inter(fn, comm);
    if (rc)
        return rc;
    if (!size)
        return faro_err(comm, MPI_ERR_ARG, "%s: size pointer is NULL", fn);
    *size = comm->remote_size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char fn[] = "MPI_Comm_remote_group";
    CHECK_COMM(fn, comm);
    int rc = check_inter(fn, comm);
    if (rc)
        return rc;
    if (!group)
        return faro_err(comm, MPI_ERR_ARG, "%s: group pointer is NULL", fn);
    struct faro_group *g = faro_group_from_world(comm->remote_size, comm->remote_world);
    if (!g)
        return no_mem(fn, comm);
    *group = g;
    return MPI_SUCCESS;
}

/* ---- split and create on an intercommunicator (MPI-2.2 semantics) ---- */

/* Each group's list of n ints reaches every member of the other group: the
 * leaders swap them, each group broadcasts what its leader got. *theirs is
 * malloc'd (*ntheirs ints). */
static int swap_lists(const char *fn, MPI_Comm comm, const int *mine, int n, int **theirs,
                      int *ntheirs)
{
    int hdr[2] = {0, MPI_SUCCESS}; /* their count, the leader's error */
    int *t = NULL;
    if (comm->rank == 0) {
        hdr[1] = faro_coll_sendrecv(fn, &n, 1, MPI_INT, 0, &hdr[0], 1, MPI_INT, 0,
                                    FARO_TAG_INTER_BASE, comm, MPI_STATUS_IGNORE);
        if (!hdr[1] && !(t = malloc(((size_t)hdr[0] + 1) * sizeof(int))))
            hdr[1] = no_mem(fn, comm);
        if (!hdr[1])
            hdr[1] = faro_coll_sendrecv(fn, mine, n, MPI_INT, 0, t, hdr[0], MPI_INT, 0,
                                        FARO_TAG_INTER_BASE, comm, MPI_STATUS_IGNORE);
    }
    int rc = PMPI_Bcast(hdr, 2, MPI_INT, 0, comm->local);
    if (!rc && hdr[1])
        rc = comm->rank == 0 ? hdr[1] : faro_leader_failed(fn, comm, hdr[1], 0);
    if (!rc && comm->rank != 0 && !(t = malloc(((size_t)hdr[0] + 1) * sizeof(int))))
        rc = no_mem(fn, comm);
    if (!rc)
        rc = PMPI_Bcast(t, hdr[0], MPI_INT, 0, comm->local);
    if (rc) {
        free(t);
        return rc;
    }
    *theirs = t;
    *ntheirs = hdr[0];
    return MPI_SUCCESS;
}

/* Every process of comm calls it with its new local group lw[0..ln) (job
 * ranks, taken over; this process is lw[me], me -1 when it is in none) and
 * the matching remote group rw[0..rn) (taken over). Groups with the same id
 * are disjoint from each other, so one agreement serves them all. */
static int sub_inter(const char *fn, MPI_Comm comm, int *lw, int ln, int me, int *rw, int rn,
                     MPI_Comm *out)
{
    int in = me >= 0 && ln > 0 && rn > 0;
    struct faro_ctx_spec s;
    uint32_t ids[2];
    faro_ctx_spec_whole(&s, fn, comm, in, 2); /* the new one and its local communicator */
    int rc = faro_ctx_agree_spec(&s, ids);
    if (rc || !in) {
        free(lw);
        free(rw);
        if (!rc)
            *out = MPI_COMM_NULL;
        return rc;
    }
    return faro_inter_new(fn, comm, ids, ln, lw, me, rn, rw, out);
}

struct keyed {
    int key, rank, world;
};

static int by_key(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* The job ranks of the members of colour among n (colour, key) pairs, in key
 * order; *me: the index of rank self (-1: not a member). NULL: out of memory. */
static int *members(const int *ck, int n, const int *world, int color, int self, int *count,
                    int *me)
{
    struct keyed *m = malloc(((size_t)n + 1) * sizeof *m);
    int *w = malloc(((size_t)n + 1) * sizeof(int));
    if (!m || !w) {
        free(m);
        free(w);
        return NULL;
    }
    int k = 0;
    for (int r = 0; r < n; r++)
        if (ck[2 * r] == color && color != MPI_UNDEFINED)
            m[k++] = (struct keyed){ck[2 * r + 1], r, world[r]};
    qsort(m, (size_t)k, sizeof *m, by_key);
    *me = -1;
    for (int i = 0; i < k; i++) {
        w[i] = m[i].world;
        if (m[i].rank == self)
            *me = i;
    }
    free(m);
    *count = k;
    return w;
}

int faro_inter_split(const char *fn, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int n = comm->size, mine[2] = {color, key}, *theirs = NULL, nt = 0;
    int *all = malloc(((size_t)n + 1) * 2 * sizeof(int));
    if (!all)
        return no_mem(fn, comm);
    int rc = PMPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm->local);
    if (!rc)
        rc = swap_lists(fn, comm, all, 2 * n, &theirs, &nt);
    if (rc) {
        free(all);
        return rc;
    }
    int ln, rn, me, other;
    int *lw = members(all, n, comm->world, color, comm->rank, &ln, &me);
    int *rw = members(theirs, nt / 2, comm->remote_world, color, -1, &rn, &other);
    free(all);
    free(theirs);
    if (!lw || !rw) {
        /* still vote, so the others do not wait for this process */
        free(lw);
        free(rw);
        MPI_Comm dummy;
        rc = sub_inter(fn, comm, NULL, 0, -1, NULL, 0, &dummy);
        return rc ? rc : no_mem(fn, comm);
    }
    return sub_inter(fn, comm, lw, ln, me, rw, rn, newcomm);
}

/* Each group passes its own subgroup (the same at each of its members). */
int faro_inter_create(const char *fn, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    for (int i = 0; i < group->size; i++) {
        int found = 0;
        for (int r = 0; r < comm->size && !found; r++)
            found = comm->world[r] == group->world[i];
        if (!found)
            return faro_err(comm, MPI_ERR_GROUP,
                            "%s: group rank %d (job rank %d) is not in the local group of the "
                            "intercommunicator (each side passes a subgroup of its own group)",
                            fn, i, group->world[i]);
    }
    int *rw = NULL, rn = 0;
    int rc = swap_lists(fn, comm, group->world, group->size, &rw, &rn);
    if (rc)
        return rc;
    int *lw = malloc(((size_t)group->size + 1) * sizeof(int));
    if (!lw) {
        free(rw);
        MPI_Comm dummy;
        rc = sub_inter(fn, comm, NULL, 0, -1, NULL, 0, &dummy);
        return rc ? rc : no_mem(fn, comm);
    }
    memcpy(lw, group->world, (size_t)group->size * sizeof(int));
    int me = group->rank == MPI_UNDEFINED ? -1 : group->rank;
    return sub_inter(fn, comm, lw, group->size, me, rw, rn, newcomm);
}
