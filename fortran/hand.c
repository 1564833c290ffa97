/*
 * The Fortran bindings the generator cannot make (api/apigen_fortran_hand.py
 * lists them with the reason and holds their Fortran interfaces): MPI_Init's
 * argc/argv, attribute values that are integers in Fortran, and reduction
 * functions written in Fortran. Same convention as the generated ones
 * (pmpi_x_ with mpi_x_ a weak alias, ierror NULL when mpi_f08 leaves it out).
 */
#include <pthread.h>
#include <stdio.h>

#include "fortran/support.h"

/* (rc is evaluated whether or not mpi_f08 passed ierror) */
#define SET_IERROR(rc) do { int rc_ = (rc); if (ierror) *ierror = rc_; } while (0)

void pmpi_init_(MPI_Fint *ierror)
{
    SET_IERROR(MPI_Init(NULL, NULL));
}
#pragma weak mpi_init_ = pmpi_init_

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    SET_IERROR(MPI_Init_thread(NULL, NULL, *required, provided));
}
#pragma weak mpi_init_thread_ = pmpi_init_thread_

/* A Fortran attribute value is an INTEGER(KIND=MPI_ADDRESS_KIND) stored as
 * the void * itself; the predefined keys hold a pointer to an int, whose
 * value Fortran gets. */
void pmpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *comm_keyval, MPI_Aint *attribute_val,
                         MPI_Fint *flag, MPI_Fint *ierror)
{
    void *v = NULL;
    int rc = MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *comm_keyval, &v, flag);
    *flag = *flag != 0;
    if (rc == MPI_SUCCESS && *flag)
        *attribute_val = faro_f_predefined_key(*comm_keyval) ? *(int *)v : (MPI_Aint)v;
    SET_IERROR(rc);
}
#pragma weak mpi_comm_get_attr_ = pmpi_comm_get_attr_

void pmpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *comm_keyval, MPI_Aint *attribute_val,
                         MPI_Fint *ierror)
{
    SET_IERROR(MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *comm_keyval, (void *)*attribute_val));
}
#pragma weak mpi_comm_set_attr_ = pmpi_comm_set_attr_

/* Reduction functions in Fortran: C calls an MPI_User_function, which is not
 * told its op, so each distinct Fortran function gets one of a fixed set of
 * C trampolines that remembers it (a slot), converting the datatype to its
 * integer. The vectors arrive as addresses in both styles (by reference in
 * mpi and mpif.h, TYPE(C_PTR), VALUE in mpi_f08). A function used again
 * (an op created and freed in a loop) reuses its slot; slots are never
 * released, so at most FARO_F_OP_SLOTS distinct functions per process. */
typedef void faro_f_user_fn(void *invec, void *inoutvec, MPI_Fint *len, MPI_Fint *datatype);
#define FARO_F_OP_SLOTS 32
static faro_f_user_fn *op_slot[FARO_F_OP_SLOTS];
static pthread_mutex_t op_slot_lock = PTHREAD_MUTEX_INITIALIZER;

#define TRAMPOLINE(a, k)                                                                   \
    static void op_trampoline_##a##_##k(void *in, void *inout, int *len, MPI_Datatype *type) \
    {                                                                                      \
        MPI_Fint ftype = MPI_Type_c2f(*type);                                              \
        op_slot[8 * (a) + (k)](in, inout, len, &ftype);                                    \
    }
#define TRAMPOLINES8(a) TRAMPOLINE(a, 0) TRAMPOLINE(a, 1) TRAMPOLINE(a, 2) TRAMPOLINE(a, 3) \
    TRAMPOLINE(a, 4) TRAMPOLINE(a, 5) TRAMPOLINE(a, 6) TRAMPOLINE(a, 7)
TRAMPOLINES8(0) TRAMPOLINES8(1) TRAMPOLINES8(2) TRAMPOLINES8(3)
#define NAMES8(a) op_trampoline_##a##_0, op_trampoline_##a##_1, op_trampoline_##a##_2,      \
    op_trampoline_##a##_3, op_trampoline_##a##_4, op_trampoline_##a##_5,                   \
    op_trampoline_##a##_6, op_trampoline_##a##_7
static MPI_User_function *const op_trampoline[FARO_F_OP_SLOTS] = {
    NAMES8(0), NAMES8(1), NAMES8(2), NAMES8(3)
};

void pmpi_op_create_(faro_f_user_fn *user_fn, MPI_Fint *commute, MPI_Fint *op,
                     MPI_Fint *ierror)
{
    int slot = -1;
    pthread_mutex_lock(&op_slot_lock);
    for (int i = 0; i < FARO_F_OP_SLOTS && slot < 0; i++)
        if (!op_slot[i] || op_slot[i] == user_fn) {
            op_slot[i] = user_fn;
            slot = i;
        }
    pthread_mutex_unlock(&op_slot_lock);
    if (slot < 0) {
        *op = 0;
        SET_IERROR(faro_f_error(MPI_ERR_INTERN, "%s (Fortran binding): more than 32 distinct "
                                "Fortran reduction functions in one process; Faro's Fortran "
                                "layer has a fixed set of trampolines", "MPI_Op_create"));
        return;
    }
    MPI_Op c_op = MPI_OP_NULL;
    int rc = MPI_Op_create(op_trampoline[slot], *commute != 0, &c_op);
    *op = MPI_Op_c2f(c_op);
    SET_IERROR(rc);
}
#pragma weak mpi_op_create_ = pmpi_op_create_
/* the name mpi_f08's module procedure calls (its own name is MPI_Op_create) */
#pragma weak faro_f_op_create_ = pmpi_op_create_
