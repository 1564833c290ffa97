/*
 * Groups (owner: group.c).
 */
#ifndef FARO_OBJECTS_GROUP_H
#define FARO_OBJECTS_GROUP_H

#include "mpi.h"

#endif
