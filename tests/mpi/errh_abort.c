/*
 * errh_abort: MPI_ERRORS_ABORT on a communicator ends the job when rank 1
 * makes an error on it; the launcher names rank 1. A user class's text
 * raised through MPI_Comm_call_errhandler appears in the message.
 */
#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "errh_abort");
    tu_need_ranks(2);
    MPI_Comm c;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    TU_CHECK(MPI_Comm_set_errhandler(c, MPI_ERRORS_ABORT));
    int cls, code;
    TU_CHECK(MPI_Add_error_class(&cls));
    TU_CHECK(MPI_Add_error_code(cls, &code));
    TU_CHECK(MPI_Add_error_string(code, "the program's own error"));
    if (tu_rank == 1)
        MPI_Comm_call_errhandler(c, code);
    else
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never sent */
    tu_fail("still running after MPI_ERRORS_ABORT");
}
