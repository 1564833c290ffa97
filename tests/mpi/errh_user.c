/*
 * errh_user: user errhandlers and the error classes, codes and strings a
 * program adds.
 *   - a user handler gets the communicator and the code of the failing call,
 *     the call returns that code, and MPI works afterwards
 *   - MPI_Comm_call_errhandler with a code the program added
 *   - errhandler references: freed while a comm uses it, it stays in use;
 *     Comm_get_errhandler gives a reference to free
 *   - MPI_Add_error_class/code/string round trip, MPI_LASTUSEDCODE,
 *     MPI_Error_class/string of codes that are not codes
 */
#include "util.h"

static int calls;
static MPI_Comm seen_comm;
static int seen_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    seen_comm = *comm;
    seen_code = *code;
    /* MPI works inside a handler */
    int size;
    if (MPI_Comm_size(*comm, &size) != MPI_SUCCESS)
        tu_fail("MPI_Comm_size failed inside the errhandler");
    *code = 12345; /* must not change what the call returns */
}

static int class_of(int rc)
{
    int cls = -1;
    TU_CHECK(MPI_Error_class(rc, &cls));
    return cls;
}

static void user_handler(void)
{
    MPI_Errhandler eh, got;
    TU_CHECK(MPI_Comm_create_errhandler(handler, &eh));
    MPI_Comm c;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    TU_CHECK(MPI_Comm_set_errhandler(c, eh));
    TU_CHECK(MPI_Errhandler_free(&eh)); /* c still uses it */
    TU_ASSERT(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not reset the handle");

    int rc = MPI_Send(NULL, 0, MPI_BYTE, tu_size + 5, 0, c);
    TU_ASSERT(calls == 1, "handler called %d times, expected 1", calls);
    TU_ASSERT(seen_comm == c, "handler got another communicator");
    TU_ASSERT(rc == seen_code, "call returned %d, the handler saw %d", rc, seen_code);
    TU_ASSERT(class_of(rc) == MPI_ERR_RANK, "bad rank gave %s", tu_errstr(rc));
    char s[MPI_MAX_ERROR_STRING];
    int len;
    TU_CHECK(MPI_Error_string(rc, s, &len));
    TU_ASSERT(strstr(s, "MPI_Send") && len == (int)strlen(s), "message \"%s\"", s);

    rc = MPI_Recv(NULL, 0, MPI_BYTE, 0, -7, c, MPI_STATUS_IGNORE);
    TU_ASSERT(calls == 2 && class_of(rc) == MPI_ERR_TAG, "bad tag: calls %d, %s", calls,
              tu_errstr(rc));

    /* the handle from get is a reference of its own */
    TU_CHECK(MPI_Comm_get_errhandler(c, &got));
    TU_ASSERT(got != MPI_ERRHANDLER_NULL, "get_errhandler gave MPI_ERRHANDLER_NULL");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, got));
    TU_CHECK(MPI_Errhandler_free(&got));
    TU_CHECK(MPI_Comm_free(&c)); /* SELF still holds it */
    rc = MPI_Send(NULL, 0, MPI_BYTE, 3, 0, MPI_COMM_SELF);
    TU_ASSERT(calls == 3 && seen_comm == MPI_COMM_SELF && class_of(rc) == MPI_ERR_RANK,
              "handler on MPI_COMM_SELF: calls %d, %s", calls, tu_errstr(rc));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    /* the library is still usable: a ping-pong */
    int peer = tu_rank ^ 1, x = tu_rank;
    if (peer < tu_size) {
        TU_CHECK(MPI_Sendrecv_replace(&x, 1, MPI_INT, peer, 1, peer, 1, MPI_COMM_WORLD,
                                      MPI_STATUS_IGNORE));
        TU_ASSERT(x == peer, "ping-pong after errors gave %d", x);
    }

    /* bad errhandler arguments */
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL);
    TU_ASSERT(class_of(rc) == MPI_ERR_ARG, "set MPI_ERRHANDLER_NULL gave %s", tu_errstr(rc));
    eh = MPI_ERRHANDLER_NULL;
    rc = MPI_Errhandler_free(&eh);
    TU_ASSERT(class_of(rc) == MPI_ERR_ARG, "free MPI_ERRHANDLER_NULL gave %s", tu_errstr(rc));
    rc = MPI_Comm_create_errhandler(NULL, &eh);
    TU_ASSERT(class_of(rc) == MPI_ERR_ARG, "create with NULL gave %s", tu_errstr(rc));
}

static void added_codes(void)
{
    int *last, flag;
    int cls1, cls2, code1, code2, code3;
    TU_CHECK(MPI_Add_error_class(&cls1));
    TU_ASSERT(cls1 >= MPI_ERR_LASTCODE, "new class %d below MPI_ERR_LASTCODE", cls1);
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    TU_ASSERT(flag && *last == cls1, "MPI_LASTUSEDCODE %d after adding class %d", *last, cls1);
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    TU_CHECK(MPI_Error_string(cls1, s, &len));
    TU_ASSERT(len == 0 && s[0] == 0, "new class has text \"%s\"", s);
    TU_CHECK(MPI_Add_error_string(cls1, "first class"));
    TU_CHECK(MPI_Error_string(cls1, s, &len));
    TU_ASSERT(!strcmp(s, "first class") && len == 11, "class text \"%s\"", s);
    TU_ASSERT(class_of(cls1) == cls1, "class of a class");

    TU_CHECK(MPI_Add_error_code(cls1, &code1));
    TU_CHECK(MPI_Add_error_code(cls1, &code2));
    TU_CHECK(MPI_Add_error_code(MPI_ERR_OTHER, &code3));
    TU_ASSERT(code1 != code2 && code1 != cls1 && code1 >= MPI_ERR_LASTCODE,
              "codes %d %d for class %d", code1, code2, cls1);
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    TU_ASSERT(*last == code3, "MPI_LASTUSEDCODE %d after adding code %d", *last, code3);
    TU_ASSERT(class_of(code1) == cls1 && class_of(code2) == cls1 &&
              class_of(code3) == MPI_ERR_OTHER, "classes of added codes");
    TU_CHECK(MPI_Error_string(code1, s, &len));
    TU_ASSERT(len == 0, "new code has text \"%s\"", s);
    TU_CHECK(MPI_Add_error_string(code1, "code one"));
    TU_CHECK(MPI_Add_error_string(code2, "code two"));
    TU_CHECK(MPI_Add_error_string(code2, "code two, again")); /* replaces */
    TU_CHECK(MPI_Error_string(code1, s, &len));
    TU_ASSERT(!strcmp(s, "code one"), "code text \"%s\"", s);
    TU_CHECK(MPI_Error_string(code2, s, &len));
    TU_ASSERT(!strcmp(s, "code two, again"), "code text \"%s\"", s);
    TU_CHECK(MPI_Error_string(cls1, s, &len));
    TU_ASSERT(!strcmp(s, "first class"), "class text changed to \"%s\"", s);

    TU_CHECK(MPI_Add_error_class(&cls2));
    TU_ASSERT(cls2 != cls1, "two classes are the same");
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    TU_ASSERT(*last == cls2, "MPI_LASTUSEDCODE %d after adding class %d", *last, cls2);

    /* predefined classes keep their text; not-codes are errors */
    TU_ASSERT(class_of(MPI_ERR_TRUNCATE) == MPI_ERR_TRUNCATE, "class of MPI_ERR_TRUNCATE");
    TU_CHECK(MPI_Error_string(MPI_ERR_TRUNCATE, s, &len));
    TU_ASSERT(len > 0, "MPI_ERR_TRUNCATE has no text");
    int rc = MPI_Add_error_string(MPI_ERR_TRUNCATE, "mine");
    TU_ASSERT(class_of(rc) == MPI_ERR_ARG, "text on a predefined class gave %s", tu_errstr(rc));
    rc = MPI_Add_error_code(cls2 + 1, &code3);
    TU_ASSERT(class_of(rc) == MPI_ERR_ARG, "code for a class that is not gave %s",
              tu_errstr(rc));
    rc = MPI_Add_error_code(code1, &code3);
    TU_ASSERT(class_of(rc) == MPI_ERR_ARG, "code for a code gave %s", tu_errstr(rc));
    int cls = -1;
    rc = MPI_Error_class(-5, &cls);
    TU_ASSERT(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_ARG, "class of -5 gave %s",
              tu_errstr(rc));
    rc = MPI_Error_class(code2 + (1 << 20), &cls);
    TU_ASSERT(rc != MPI_SUCCESS, "class of a code never made succeeded");
    char big[MPI_MAX_ERROR_STRING + 10];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    rc = MPI_Add_error_string(code1, big);
    TU_ASSERT(class_of(rc) == MPI_ERR_ARG, "a too long text gave %s", tu_errstr(rc));

    /* call_errhandler passes the program's code through unchanged */
    MPI_Errhandler eh;
    TU_CHECK(MPI_Comm_create_errhandler(handler, &eh));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    TU_CHECK(MPI_Errhandler_free(&eh));
    int before = calls;
    rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, code2);
    TU_ASSERT(rc == MPI_SUCCESS, "MPI_Comm_call_errhandler returned %d", rc);
    TU_ASSERT(calls == before + 1 && seen_code == code2 && seen_comm == MPI_COMM_WORLD,
              "call_errhandler: calls %d, code %d (expected %d)", calls - before, seen_code,
              code2);
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, code1);
    TU_ASSERT(rc == MPI_SUCCESS, "call_errhandler with MPI_ERRORS_RETURN returned %d", rc);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "errh_user");
    user_handler();
    added_codes();
    tu_finish();
    return 0;
}
