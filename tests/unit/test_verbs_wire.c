/*
 * Unit tests of the verbs transport's wire formats (transports/verbs/
 * verbs_wire.h): SipHash-2-4 against the reference vectors, round trips of
 * every format, the exact bytes of each field, and malformed input: every
 * length short of the format, every single-bit change of a connection
 * message, out-of-range fields, and random bytes to every decoder.
 */
#include "verbs/verbs_wire.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

static const uint8_t key_a[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t key_b[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17 };

START_TEST(test_siphash_vectors)
{
    /* The reference implementation's vectors: key 00..0f, message 00..len-1. */
    uint8_t key[16], msg[16];
    for (int i = 0; i < 16; i++)
        key[i] = msg[i] = (uint8_t)i;
    ck_assert_uint_eq(verbs_siphash(key, msg, 0), 0x726fdb47dd0e0e31ull);
    ck_assert_uint_eq(verbs_siphash(key, msg, 1), 0x74f839c593dc67fdull);
    ck_assert_uint_eq(verbs_siphash(key, msg, 15), 0xa129ca6149be45e5ull);
}
END_TEST

START_TEST(test_key16)
{
    uint8_t a[16], b[16], c[16];
    const uint8_t k64[64] = { 7 };
    verbs_key16((const uint8_t *)"0123456789abcdef", 16, a);
    verbs_key16((const uint8_t *)"0123456789abcdef0", 17, b);
    verbs_key16(k64, sizeof k64, c);
    ck_assert_mem_ne(a, b, 16); /* a longer key is another key */
    verbs_key16(k64, 63, b);
    ck_assert_mem_ne(b, c, 16);
}
END_TEST

START_TEST(test_msg_roundtrip)
{
    uint8_t buf[VERBS_MSG_HDR + FARO_TP_MAX_HDR + 10];
    const unsigned kinds[] = { 0, 1, FARO_TP_MAX_KINDS - 1, VERBS_KIND_HELLO, VERBS_KIND_CREDIT,
                               VERBS_KIND_BYE };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (unsigned h = 0; h <= FARO_TP_MAX_HDR; h += 8) {
            struct verbs_msg m = { .kind = (uint8_t)kinds[k], .hdrlen = (uint8_t)h,
                                   .credits = (uint16_t)(h * 1000 + k), .ctl = (uint8_t)k }, d;
            verbs_msg_encode(buf, &m);
            ck_assert_int_eq(verbs_msg_decode(buf, VERBS_MSG_HDR + h, FARO_TP_MAX_KINDS,
                                              FARO_TP_MAX_HDR, &d), VERBS_WIRE_OK);
            ck_assert_uint_eq(d.kind, m.kind);
            ck_assert_uint_eq(d.hdrlen, m.hdrlen);
            ck_assert_uint_eq(d.credits, m.credits);
            ck_assert_uint_eq(d.ctl, m.ctl);
        }
}
END_TEST

START_TEST(test_msg_bytes)
{
    uint8_t buf[VERBS_MSG_HDR];
    struct verbs_msg m = { .kind = 3, .hdrlen = 40, .credits = 0x1234, .ctl = 1 };
    const uint8_t want[VERBS_MSG_HDR] = { 3, 40, 0x34, 0x12, 1, 0, 0, 0 };
    verbs_msg_encode(buf, &m);
    ck_assert_mem_eq(buf, want, sizeof want); /* little-endian, fixed offsets */
}
END_TEST

START_TEST(test_msg_malformed)
{
    uint8_t buf[VERBS_MSG_HDR + FARO_TP_MAX_HDR + 1];
    struct verbs_msg m = { .kind = 2, .hdrlen = 16 }, d;
    verbs_msg_encode(buf, &m);
    for (size_t len = 0; len < VERBS_MSG_HDR + 16; len++) /* header or owner header cut */
        ck_assert_int_eq(verbs_msg_decode(buf, len, FARO_TP_MAX_KINDS, FARO_TP_MAX_HDR, &d),
                         VERBS_WIRE_SHORT);
    buf[5] = 1; /* flags */
    ck_assert_int_eq(verbs_msg_decode(buf, sizeof buf, FARO_TP_MAX_KINDS, FARO_TP_MAX_HDR, &d),
                     VERBS_WIRE_MALFORMED);
    buf[5] = 0;
    buf[7] = 1; /* reserved */
    ck_assert_int_eq(verbs_msg_decode(buf, sizeof buf, FARO_TP_MAX_KINDS, FARO_TP_MAX_HDR, &d),
                     VERBS_WIRE_MALFORMED);
    buf[7] = 0;
    buf[0] = FARO_TP_MAX_KINDS; /* neither an owner kind nor one of ours */
    ck_assert_int_eq(verbs_msg_decode(buf, sizeof buf, FARO_TP_MAX_KINDS, FARO_TP_MAX_HDR, &d),
                     VERBS_WIRE_MALFORMED);
    buf[0] = 0xfc;
    ck_assert_int_eq(verbs_msg_decode(buf, sizeof buf, FARO_TP_MAX_KINDS, FARO_TP_MAX_HDR, &d),
                     VERBS_WIRE_MALFORMED);
    buf[0] = 2;
    buf[1] = FARO_TP_MAX_HDR + 1; /* longer than any owner header */
    ck_assert_int_eq(verbs_msg_decode(buf, sizeof buf, FARO_TP_MAX_KINDS, FARO_TP_MAX_HDR, &d),
                     VERBS_WIRE_MALFORMED);
}
END_TEST

static struct verbs_cm cm_sample(uint8_t type)
{
    return (struct verbs_cm){ .type = type, .verdict = type == VERBS_CM_REJECT ? 1 : 0,
                              .ctl = 1, .credits = 63, .buf_size = 8192, .id = 5, .size = 8,
                              .dest = 2, .nonce = 0x0123456789abcdefull };
}

static void cm_eq(const struct verbs_cm *a, const struct verbs_cm *b)
{
    ck_assert_uint_eq(a->type, b->type);
    ck_assert_uint_eq(a->verdict, b->verdict);
    ck_assert_uint_eq(a->ctl, b->ctl);
    ck_assert_uint_eq(a->credits, b->credits);
    ck_assert_uint_eq(a->buf_size, b->buf_size);
    ck_assert_uint_eq(a->id, b->id);
    ck_assert_uint_eq(a->size, b->size);
    ck_assert_uint_eq(a->dest, b->dest);
    ck_assert_uint_eq(a->nonce, b->nonce);
}

/* Each message, well signed with key, is refused as malformed. */
static void expect_malformed(const struct verbs_cm *bad, size_t n, const uint8_t key[16])
{
    uint8_t buf[VERBS_CM_LEN];
    struct verbs_cm d;
    for (size_t i = 0; i < n; i++) {
        verbs_cm_encode(buf, &bad[i], key, 0);
        ck_assert_msg(verbs_cm_decode(buf, sizeof buf, key, 0, &d) == VERBS_WIRE_MALFORMED,
                      "case %zu (type %u) was not refused", i, bad[i].type);
    }
}

START_TEST(test_cm_roundtrip)
{
    uint8_t buf[56];
    for (uint8_t t = VERBS_CM_REQUEST; t <= VERBS_CM_REJECT; t++) {
        struct verbs_cm m = cm_sample(t), d;
        memset(buf, 0, sizeof buf);
        verbs_cm_encode(buf, &m, key_a, 77);
        ck_assert_int_eq(verbs_cm_decode(buf, VERBS_CM_LEN, key_a, 77, &d), VERBS_WIRE_OK);
        cm_eq(&m, &d);
        /* rdma_cm hands over 56 bytes on InfiniBand, zero-padded */
        ck_assert_int_eq(verbs_cm_decode(buf, sizeof buf, key_a, 77, &d), VERBS_WIRE_OK);
    }
}
END_TEST

START_TEST(test_cm_proof)
{
    uint8_t buf[VERBS_CM_LEN];
    struct verbs_cm m = cm_sample(VERBS_CM_REQUEST), d;
    verbs_cm_encode(buf, &m, key_a, 77);
    ck_assert_int_eq(verbs_cm_decode(buf, sizeof buf, key_b, 77, &d), VERBS_WIRE_PROOF);
    /* a request made for another process instance (an earlier one) */
    ck_assert_int_eq(verbs_cm_decode(buf, sizeof buf, key_a, 78, &d), VERBS_WIRE_PROOF);
    /* every single-bit change is caught */
    for (size_t bit = 0; bit < 8 * sizeof buf; bit++) {
        uint8_t copy[VERBS_CM_LEN];
        memcpy(copy, buf, sizeof copy);
        copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        ck_assert_int_ne(verbs_cm_decode(copy, sizeof copy, key_a, 77, &d), VERBS_WIRE_OK);
    }
}
END_TEST

START_TEST(test_cm_malformed)
{
    uint8_t buf[VERBS_CM_LEN];
    struct verbs_cm m = cm_sample(VERBS_CM_ACCEPT), d;
    verbs_cm_encode(buf, &m, key_a, 0);
    for (size_t len = 0; len < VERBS_CM_LEN; len++)
        ck_assert_int_eq(verbs_cm_decode(buf, len, key_a, 0, &d), VERBS_WIRE_SHORT);
    ck_assert_int_eq(verbs_cm_decode(NULL, 0, key_a, 0, &d), VERBS_WIRE_SHORT);
    buf[4] = VERBS_WIRE_VERSION + 1; /* named before the proof: mixed builds */
    ck_assert_int_eq(verbs_cm_decode(buf, sizeof buf, key_a, 0, &d), VERBS_WIRE_VERSION_ERR);
    buf[0] ^= 1;
    ck_assert_int_eq(verbs_cm_decode(buf, sizeof buf, key_a, 0, &d), VERBS_WIRE_MAGIC);

    /* Well signed, but out of range: each is refused. */
    struct verbs_cm bad[] = { cm_sample(VERBS_CM_ACCEPT), cm_sample(VERBS_CM_ACCEPT),
                              cm_sample(VERBS_CM_ACCEPT), cm_sample(VERBS_CM_ACCEPT),
                              cm_sample(VERBS_CM_ACCEPT), cm_sample(VERBS_CM_REQUEST),
                              cm_sample(VERBS_CM_REJECT), cm_sample(VERBS_CM_REQUEST),
                              cm_sample(VERBS_CM_REQUEST) };
    bad[0].type = 0;
    bad[1].type = VERBS_CM_PORT_REJECT + 1;
    bad[2].id = 8;        /* not below the job size */
    bad[3].dest = 5;      /* to itself */
    bad[4].verdict = 1;   /* a verdict on an accept */
    bad[5].credits = 0;   /* a connection that grants nothing */
    bad[6].verdict = 3;
    bad[7].size = 0;
    bad[8].buf_size = 0;
    expect_malformed(bad, sizeof bad / sizeof bad[0], key_a);
}
END_TEST

/* A port's connection messages: no ranks, the connector's id of any value
 * in the request only, never a collision, proved with the port's key. */
static struct verbs_cm cm_port_sample(uint8_t type)
{
    return (struct verbs_cm){ .type = type, .verdict = type == VERBS_CM_PORT_REJECT ? 2 : 0,
                              .ctl = 1, .credits = 63, .buf_size = 8192,
                              .id = type == VERBS_CM_PORT_REQUEST ? 0xfedcba9876543210ull : 0,
                              .nonce = 42 };
}

START_TEST(test_cm_port)
{
    uint8_t buf[56] = { 0 };
    struct verbs_cm d;
    for (uint8_t t = VERBS_CM_PORT_REQUEST; t <= VERBS_CM_PORT_REJECT; t++) {
        struct verbs_cm m = cm_port_sample(t);
        ck_assert_int_eq(t - VERBS_CM_PORT, t - 3); /* the job's counterpart */
        verbs_cm_encode(buf, &m, key_b, 99);
        ck_assert_int_eq(verbs_cm_decode(buf, sizeof buf, key_b, 99, &d), VERBS_WIRE_OK);
        cm_eq(&m, &d);
        /* the job's key does not open it, nor does it bind to another instance */
        ck_assert_int_eq(verbs_cm_decode(buf, sizeof buf, key_a, 99, &d), VERBS_WIRE_PROOF);
        ck_assert_int_eq(verbs_cm_decode(buf, sizeof buf, key_b, 98, &d), VERBS_WIRE_PROOF);
    }
    struct verbs_cm bad[] = { cm_port_sample(VERBS_CM_PORT_REQUEST),
                              cm_port_sample(VERBS_CM_PORT_REQUEST),
                              cm_port_sample(VERBS_CM_PORT_ACCEPT),
                              cm_port_sample(VERBS_CM_PORT_REJECT),
                              cm_port_sample(VERBS_CM_PORT_ACCEPT) };
    bad[0].size = 4;      /* ranks have no place on a port */
    bad[1].dest = 1;
    bad[2].id = 3;        /* an id in an answer */
    bad[3].verdict = VERBS_REJ_COLLISION; /* ports never collide */
    bad[4].credits = 0;
    expect_malformed(bad, sizeof bad / sizeof bad[0], key_b);
}
END_TEST

START_TEST(test_addr)
{
    uint8_t buf[VERBS_ADDR_LEN + 1];
    struct verbs_addr a = { .family = 4, .port = 0xbeef, .rank = 12, .buf_size = 8192,
                            .instance = 0xfeedfacecafebeefull, .ip = { 10, 0, 0, 7 } }, d;
    verbs_addr_encode(buf, &a);
    ck_assert_int_eq(verbs_addr_decode(buf, VERBS_ADDR_LEN, &d), VERBS_WIRE_OK);
    ck_assert_uint_eq(d.family, 4);
    ck_assert_uint_eq(d.port, 0xbeef);
    ck_assert_uint_eq(d.rank, 12);
    ck_assert_uint_eq(d.buf_size, 8192);
    ck_assert_uint_eq(d.instance, a.instance);
    ck_assert_mem_eq(d.ip, a.ip, 4);
    ck_assert_uint_eq(buf[6], 0xef); /* little-endian */
    ck_assert_uint_eq(buf[7], 0xbe);

    a.family = 6;
    for (int i = 0; i < 16; i++)
        a.ip[i] = (uint8_t)(0xf0 + i);
    verbs_addr_encode(buf, &a);
    ck_assert_int_eq(verbs_addr_decode(buf, VERBS_ADDR_LEN, &d), VERBS_WIRE_OK);
    ck_assert_mem_eq(d.ip, a.ip, 16);

    for (size_t len = 0; len < VERBS_ADDR_LEN; len++)
        ck_assert_int_eq(verbs_addr_decode(buf, len, &d), VERBS_WIRE_SHORT);
    ck_assert_int_eq(verbs_addr_decode(buf, VERBS_ADDR_LEN + 1, &d), VERBS_WIRE_MALFORMED);
    buf[5] = 5;
    ck_assert_int_eq(verbs_addr_decode(buf, VERBS_ADDR_LEN, &d), VERBS_WIRE_MALFORMED);
    buf[5] = 4;
    buf[6] = buf[7] = 0; /* port 0 */
    ck_assert_int_eq(verbs_addr_decode(buf, VERBS_ADDR_LEN, &d), VERBS_WIRE_MALFORMED);
    buf[4] = 9;
    ck_assert_int_eq(verbs_addr_decode(buf, VERBS_ADDR_LEN, &d), VERBS_WIRE_VERSION_ERR);
    buf[1] = 0; /* a blob of another transport */
    ck_assert_int_eq(verbs_addr_decode(buf, VERBS_ADDR_LEN, &d), VERBS_WIRE_MAGIC);
}
END_TEST

START_TEST(test_rkey)
{
    uint8_t buf[VERBS_RKEY_LEN + 1];
    struct verbs_rkey_wire k = { .rkey = 0xdeadbeef, .base = 0xffffffffffff0000ull,
                                 .len = 0x20000 }, d;
    ck_assert_int_le(VERBS_RKEY_LEN, 22); /* fits the MPI core's RTS header */
    ck_assert_int_eq(verbs_rkey_encode(buf, &k), VERBS_WIRE_OK);
    ck_assert_int_eq(verbs_rkey_decode(buf, VERBS_RKEY_LEN, &d), VERBS_WIRE_MALFORMED); /* wraps */
    k.base = 0x7f0012345000ull;
    k.len = VERBS_RKEY_MAX_LEN;
    ck_assert_int_eq(verbs_rkey_encode(buf, &k), VERBS_WIRE_OK);
    ck_assert_int_eq(verbs_rkey_decode(buf, VERBS_RKEY_LEN, &d), VERBS_WIRE_OK);
    ck_assert_uint_eq(d.rkey, k.rkey);
    ck_assert_uint_eq(d.base, k.base);
    ck_assert_uint_eq(d.len, k.len);
    k.len = 1ull << 56;
    ck_assert_int_eq(verbs_rkey_encode(buf, &k), VERBS_WIRE_MALFORMED);
    k.len = 65536;
    verbs_rkey_encode(buf, &k);
    for (size_t len = 0; len < VERBS_RKEY_LEN; len++)
        ck_assert_int_eq(verbs_rkey_decode(buf, len, &d), VERBS_WIRE_SHORT);
    ck_assert_int_eq(verbs_rkey_decode(buf, VERBS_RKEY_LEN + 1, &d), VERBS_WIRE_MALFORMED);
    buf[12] = VERBS_WIRE_VERSION + 1;
    ck_assert_int_eq(verbs_rkey_decode(buf, VERBS_RKEY_LEN, &d), VERBS_WIRE_VERSION_ERR);
    k.len = 0;
    verbs_rkey_encode(buf, &k);
    ck_assert_int_eq(verbs_rkey_decode(buf, VERBS_RKEY_LEN, &d), VERBS_WIRE_MALFORMED);
}
END_TEST

START_TEST(test_random_input)
{
    /* Random bytes of every length: no decoder reads out of bounds (run under
     * the sanitizer build), and none takes garbage for a connection message. */
    uint8_t buf[128];
    unsigned seed = 12345;
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)rand_r(&seed) % sizeof buf;
        uint8_t *p = malloc(len ? len : 1);
        for (size_t i = 0; i < len; i++)
            p[i] = (uint8_t)rand_r(&seed);
        if (round % 2 && len >= 5) { /* often Faro's magic and version, to get further */
            memcpy(p, "FaRV", 4);
            p[4] = VERBS_WIRE_VERSION;
        }
        struct verbs_msg m;
        struct verbs_cm c;
        struct verbs_addr a;
        struct verbs_rkey_wire k;
        (void)verbs_msg_decode(p, len, FARO_TP_MAX_KINDS, FARO_TP_MAX_HDR, &m);
        ck_assert_int_ne(verbs_cm_decode(p, len, key_a, 1, &c), VERBS_WIRE_OK);
        (void)verbs_addr_decode(p, len, &a);
        (void)verbs_rkey_decode(p, len, &k);
        free(p);
    }
}
END_TEST

static Suite *wire_suite(void)
{
    Suite *s = suite_create("verbs_wire");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_siphash_vectors);
    tcase_add_test(tc, test_key16);
    tcase_add_test(tc, test_msg_roundtrip);
    tcase_add_test(tc, test_msg_bytes);
    tcase_add_test(tc, test_msg_malformed);
    tcase_add_test(tc, test_cm_roundtrip);
    tcase_add_test(tc, test_cm_proof);
    tcase_add_test(tc, test_cm_malformed);
    tcase_add_test(tc, test_cm_port);
    tcase_add_test(tc, test_addr);
    tcase_add_test(tc, test_rkey);
    tcase_add_test(tc, test_random_input);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(wire_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
