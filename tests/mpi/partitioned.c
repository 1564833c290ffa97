/*
 * Partitioned point-to-point (MPI-4.0): ranks in pairs (even sends, odd
 * receives). Each case runs ROUNDS starts with new data per start:
 *  - equal partition counts, partitions readied in a shuffled order, each
 *    checked by the receiver as soon as MPI_Parrived says it is there;
 *  - different counts on the two sides (6 x 20 ints sent, 4 x 30 received);
 *  - MPI_Pready_range and MPI_Pready_list;
 *  - partitions large enough for the rendezvous protocol;
 *  - two operations on one peer and tag, matched in init order;
 *  - with TEST_THREADS=T (MPI_THREAD_MULTIPLE): T threads per sender, each
 *    readying its own partitions in reverse order.
 * Then the request rules and argument errors under MPI_ERRORS_RETURN.
 */
#include "util.h"

#include <pthread.h>

#define ROUNDS 3

static int val(int k, int i)
{
    return k * 1000003 + i * 7 + 1;
}

/* The receive side of one case: start, watch the partitions arrive, check. */
static void receive(int *buf, int parts, int count, int src, int tag, int k, const char *what)
{
    MPI_Request r;
    TU_CHECK(MPI_Precv_init(buf, parts, count, MPI_INT, src, tag, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &r));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < parts * count; i++)
            buf[i] = -1;
        TU_CHECK(MPI_Start(&r));
        int left = parts;
        char *seen = calloc((size_t)parts, 1);
        while (left) {
            for (int j = 0; j < parts; j++) {
                int flag = 0;
                if (seen[j])
                    continue;
                TU_CHECK(MPI_Parrived(r, j, &flag));
                if (!flag)
                    continue;
                for (int i = j * count; i < (j + 1) * count; i++)
                    if (buf[i] != val(k + round, i))
                        tu_fail("%s, start %d: partition %d arrived but element %d is %d, "
                                "expected %d", what, round, j, i, buf[i], val(k + round, i));
                seen[j] = 1;
                left--;
            }
        }
        free(seen);
        MPI_Status st;
        TU_CHECK(MPI_Wait(&r, &st));
        TU_ASSERT(r != MPI_REQUEST_NULL, "%s: MPI_Wait freed a partitioned request", what);
        int got = -1;
        TU_CHECK(MPI_Get_count(&st, MPI_INT, &got));
        TU_ASSERT(st.MPI_SOURCE == src && st.MPI_TAG == tag && got == parts * count,
                  "%s: status source %d tag %d count %d, expected %d %d %d", what,
                  st.MPI_SOURCE, st.MPI_TAG, got, src, tag, parts * count);
        for (int i = 0; i < parts * count; i++)
            if (buf[i] != val(k + round, i))
                tu_fail("%s, start %d: element %d is %d, expected %d", what, round, i, buf[i],
                        val(k + round, i));
    }
    TU_CHECK(MPI_Request_free(&r));
}

enum how { SHUFFLED, RANGE, LIST };

static void send_all(int *buf, int parts, int count, int dest, int tag, int k, enum how how)
{
    MPI_Request r;
    TU_CHECK(MPI_Psend_init(buf, parts, count, MPI_INT, dest, tag, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < parts * count; i++)
            buf[i] = val(k + round, i);
        TU_CHECK(MPI_Start(&r));
        if (how == SHUFFLED) {
            int stride = parts > 2 && parts % 3 ? 3 : parts - 1; /* coprime with parts */
            for (int s = 0; s < parts; s++) /* a permutation of 0..parts-1 */
                TU_CHECK(MPI_Pready((s * stride + round + 1) % parts, r));
        } else if (how == RANGE) {
            TU_CHECK(MPI_Pready_range(parts / 2, parts - 1, r));
            TU_CHECK(MPI_Pready_range(0, parts / 2 - 1, r));
        } else {
            int *list = malloc((size_t)parts * sizeof(int));
            for (int s = 0; s < parts; s++)
                list[s] = parts - 1 - s;
            TU_CHECK(MPI_Pready_list(parts - 1, list, r));
            TU_CHECK(MPI_Pready_list(1, &list[parts - 1], r));
            free(list);
        }
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    TU_CHECK(MPI_Request_free(&r));
}

/* One partition at a time: the sender readies partition j only when the
 * receiver asks for it, and the receiver checks that no partition it has not
 * asked for yet is reported arrived (and that j's data is in once it is). */
static void stepwise(int sender, int peer, int *buf)
{
    const int parts = 6, count = 50;
    MPI_Request r;
    if (sender) {
        TU_CHECK(MPI_Psend_init(buf, parts, count, MPI_INT, peer, 11, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &r));
        for (int i = 0; i < parts * count; i++)
            buf[i] = val(77, i);
        TU_CHECK(MPI_Start(&r));
        for (int j = parts - 1; j >= 0; j--) {
            tu_token_recv(peer, TU_TAG_TOKEN);
            TU_CHECK(MPI_Pready(j, r));
        }
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        TU_CHECK(MPI_Precv_init(buf, parts, count, MPI_INT, peer, 11, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &r));
        TU_CHECK(MPI_Start(&r));
        for (int j = parts - 1; j >= 0; j--) {
            int flag = 0;
            for (int i = 0; i <= j; i++) {
                TU_CHECK(MPI_Parrived(r, i, &flag));
                TU_ASSERT(!flag, "stepwise: partition %d reported arrived before it was "
                          "readied", i);
            }
            tu_token_send(peer, TU_TAG_TOKEN);
            while (!flag)
                TU_CHECK(MPI_Parrived(r, j, &flag));
            for (int i = j * count; i < (j + 1) * count; i++)
                TU_ASSERT(buf[i] == val(77, i), "stepwise: partition %d arrived but element %d "
                          "is %d, expected %d", j, i, buf[i], val(77, i));
        }
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    TU_CHECK(MPI_Request_free(&r));
}

/* Two operations with one peer and one tag match in init order, whatever
 * order they are started and readied in (sizes differ, so a cross shows). */
static void same_tag(int sender, int peer)
{
    int a[2 * 40], b[3 * 25];
    MPI_Request r[2];
    for (int round = 0; round < ROUNDS; round++) {
        if (sender) {
            TU_CHECK(MPI_Psend_init(a, 2, 40, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &r[0]));
            TU_CHECK(MPI_Psend_init(b, 3, 25, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &r[1]));
            for (int i = 0; i < 80; i++)
                a[i] = val(round, i);
            for (int i = 0; i < 75; i++)
                b[i] = -val(round, i);
            TU_CHECK(MPI_Start(&r[1])); /* the second first */
            TU_CHECK(MPI_Pready_range(0, 2, r[1]));
            TU_CHECK(MPI_Start(&r[0]));
            TU_CHECK(MPI_Pready_range(0, 1, r[0]));
        } else {
            TU_CHECK(MPI_Precv_init(a, 2, 40, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &r[0]));
            TU_CHECK(MPI_Precv_init(b, 3, 25, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &r[1]));
            TU_CHECK(MPI_Startall(2, r));
        }
        TU_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        if (!sender) {
            for (int i = 0; i < 80; i++)
                TU_ASSERT(a[i] == val(round, i), "same tag: first operation's element %d is "
                          "%d, expected %d", i, a[i], val(round, i));
            for (int i = 0; i < 75; i++)
                TU_ASSERT(b[i] == -val(round, i), "same tag: second operation's element %d is "
                          "%d, expected %d", i, b[i], -val(round, i));
        }
        TU_CHECK(MPI_Request_free(&r[0]));
        TU_CHECK(MPI_Request_free(&r[1]));
    }
}

struct worker {
    MPI_Request r;
    int first, n;
};

static void *ready_reversed(void *arg)
{
    struct worker *w = arg;
    for (int i = w->first + w->n - 1; i >= w->first; i--)
        TU_CHECK(MPI_Pready(i, w->r));
    return NULL;
}

static void send_threads(int *buf, int parts, int count, int dest, int tag, int k, int nthr)
{
    MPI_Request r;
    TU_CHECK(MPI_Psend_init(buf, parts, count, MPI_INT, dest, tag, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r));
    pthread_t th[16];
    struct worker w[16];
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < parts * count; i++)
            buf[i] = val(k + round, i);
        TU_CHECK(MPI_Start(&r));
        for (int t = 0; t < nthr; t++) { /* thread t readies every nthr-th block of parts */
            w[t].r = r;
            w[t].first = t * (parts / nthr);
            w[t].n = parts / nthr;
            if (pthread_create(&th[t], NULL, ready_reversed, &w[t]))
                tu_fail("pthread_create failed");
        }
        for (int t = 0; t < nthr; t++)
            pthread_join(th[t], NULL);
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    TU_CHECK(MPI_Request_free(&r));
}

static void errors(int sender, int peer)
{
    int buf[8];
    MPI_Request r, bad = MPI_REQUEST_NULL;
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    tu_expect(MPI_Psend_init(buf, 0, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
              MPI_ERR_ARG, "MPI_Psend_init", "0 partitions");
    tu_expect(MPI_Psend_init(buf, 2, -1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
              MPI_ERR_COUNT, "MPI_Psend_init", "count -1");
    tu_expect(MPI_Psend_init(buf, 2, 1, MPI_INT, tu_size, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &bad), MPI_ERR_RANK, "MPI_Psend_init", "dest = size");
    tu_expect(MPI_Precv_init(buf, 2, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &bad), MPI_ERR_RANK, "MPI_Precv_init",
              "MPI_ANY_SOURCE");
    tu_expect(MPI_Precv_init(buf, 2, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &bad), MPI_ERR_TAG, "MPI_Precv_init", "MPI_ANY_TAG");
    tu_expect(MPI_Precv_init(buf, 2, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, NULL),
              MPI_ERR_ARG, "MPI_Precv_init", "NULL request");
    TU_ASSERT(bad == MPI_REQUEST_NULL, "a failed init set the request");
    /* the request rules, on a partitioned send to MPI_PROC_NULL and a receive from it */
    TU_CHECK(MPI_Psend_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &r));
    tu_expect(MPI_Pready(0, r), MPI_ERR_REQUEST, "MPI_Pready", "inactive request");
    TU_CHECK(MPI_Start(&r));
    tu_expect(MPI_Start(&r), MPI_ERR_REQUEST, "MPI_Start", "active request");
    tu_expect(MPI_Pready(4, r), MPI_ERR_ARG, "MPI_Pready", "partition 4 of 4");
    tu_expect(MPI_Pready_range(2, 1, r), MPI_ERR_ARG, "MPI_Pready_range", "low > high");
    int flag;
    tu_expect(MPI_Parrived(r, 0, &flag), MPI_ERR_REQUEST, "MPI_Parrived", "on a send request");
    tu_expect(MPI_Cancel(&r), MPI_ERR_REQUEST, "MPI_Cancel", "partitioned request");
    TU_CHECK(MPI_Pready(1, r));
    tu_expect(MPI_Pready(1, r), MPI_ERR_ARG, "MPI_Pready", "partition readied twice");
    TU_CHECK(MPI_Pready_range(2, 3, r));
    flag = 0;
    TU_CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    TU_ASSERT(!flag, "partitioned send complete with partition 0 not ready");
    TU_CHECK(MPI_Pready(0, r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Request_free(&r));
    TU_CHECK(MPI_Precv_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &r));
    tu_expect(MPI_Pready(0, r), MPI_ERR_REQUEST, "MPI_Pready", "on a receive request");
    tu_expect(MPI_Parrived(r, 0, &flag), MPI_ERR_REQUEST, "MPI_Parrived", "inactive request");
    TU_CHECK(MPI_Start(&r));
    tu_expect(MPI_Parrived(r, -1, &flag), MPI_ERR_ARG, "MPI_Parrived", "partition -1");
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Request_free(&r)); /* inactive */
    (void)sender;
}

/* Partitions of no bytes, to self, started three times: a partition has
 * arrived only after the sender readied it, in every run (mpi4py's
 * test_p2p_buf_part found MPI_Parrived true at once from the second run). */
static void empty_parts(void)
{
    int buf[1];
    MPI_Request sr, rr;
    for (int parts = 1; parts <= 3; parts++) {
        TU_CHECK(MPI_Psend_init(buf, parts, 0, MPI_INT, tu_rank, 5, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &sr));
        TU_CHECK(MPI_Precv_init(buf, parts, 0, MPI_INT, tu_rank, 5, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &rr));
        for (int run = 0; run < 3; run++) {
            int flag;
            TU_CHECK(MPI_Start(&rr));
            for (int i = 0; i < parts; i++) {
                TU_CHECK(MPI_Parrived(rr, i, &flag));
                TU_ASSERT(!flag, "empty partition %d of %d arrived before the send started "
                          "(run %d)", i, parts, run);
            }
            TU_CHECK(MPI_Start(&sr));
            for (int i = 0; i < parts; i++) {
                TU_CHECK(MPI_Pready(i, sr));
                for (int j = i + 1; j < parts; j++) {
                    TU_CHECK(MPI_Parrived(rr, j, &flag));
                    TU_ASSERT(!flag, "empty partition %d of %d arrived before it was readied "
                              "(run %d)", j, parts, run);
                }
            }
            for (int i = 0; i < parts; i++)
                do
                    TU_CHECK(MPI_Parrived(rr, i, &flag));
                while (!flag);
            TU_CHECK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
            TU_CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        }
        TU_CHECK(MPI_Request_free(&sr));
        TU_CHECK(MPI_Request_free(&rr));
    }
}

int main(int argc, char **argv)
{
    int nthr = tu_env_int("TEST_THREADS", 0);
    if (nthr)
        tu_init_multiple(&argc, &argv, "partitioned", 60);
    else
        tu_init(&argc, &argv, "partitioned");
    int sender, peer = tu_pair(&sender);
    int *buf = malloc(400000 * sizeof(int));
    struct {
        int sparts, scount, rparts, rcount, tag;
        enum how how;
        const char *what;
    } cases[] = {
        {8, 1000, 8, 1000, 1, SHUFFLED, "8 partitions, shuffled Pready"},
        {6, 20, 4, 30, 2, SHUFFLED, "6 partitions sent, 4 received"},
        {3, 40, 12, 10, 2, SHUFFLED, "3 partitions sent, 12 received"},
        {7, 10, 7, 10, 3, RANGE, "Pready_range"},
        {5, 10, 5, 10, 4, LIST, "Pready_list"},
        {4, 100000, 4, 100000, 5, SHUFFLED, "rendezvous-sized partitions"},
        {1, 0, 1, 0, 6, SHUFFLED, "one empty partition"},
    };
    int ncases = nthr ? 0 : (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < ncases; c++) {
        if (sender)
            send_all(buf, cases[c].sparts, cases[c].scount, peer, cases[c].tag, c * 10,
                     cases[c].how);
        else
            receive(buf, cases[c].rparts, cases[c].rcount, peer, cases[c].tag, c * 10,
                    cases[c].what);
    }
    for (int rep = 0; nthr && rep < 10; rep++) {
        if (sender)
            send_threads(buf, 16 * nthr, 500, peer, 9, rep * 10, nthr);
        else
            receive(buf, 16 * nthr, 500, peer, 9, rep * 10, "threads");
    }
    if (!nthr) {
        stepwise(sender, peer, buf);
        same_tag(sender, peer);
    }
    errors(sender, peer);
    empty_parts();
    free(buf);
    tu_finish();
    return 0;
}
