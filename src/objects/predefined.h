/*
 * The fixed-size objects behind mpi.h's predefined handles (MPI_COMM_WORLD,
 * MPI_INT, MPI_SUM ...). A program copies the ones it uses into itself when
 * it starts (ELF copy relocations) with the size the library had when the
 * program was linked, so that size is part of the binary interface: each
 * object is the library's struct in a union padded to the size mpi.h
 * promises (FARO_PREDEFINED_<KIND>_SIZE), and a struct that outgrows it fails
 * to compile instead of breaking every program built before.
 */
#ifndef FARO_OBJECTS_PREDEFINED_H
#define FARO_OBJECTS_PREDEFINED_H

#include "mpi.h"

#define FARO_PREDEFINED_WRAPPER(kind, KIND)                                                 \
    struct kind##_predefined {                                                              \
        union {                                                                             \
            struct kind obj;                                                                \
            char pad[FARO_PREDEFINED_##KIND##_SIZE];                                        \
        };                                                                                  \
    };                                                                                      \
    _Static_assert(sizeof(struct kind) <= FARO_PREDEFINED_##KIND##_SIZE,                    \
                   "struct " #kind " outgrew FARO_PREDEFINED_" #KIND "_SIZE, which programs " \
                   "built against earlier libraries depend on")

#endif
