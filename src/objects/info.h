/*
 * Info objects (owner: info.c).
 */
#ifndef FARO_OBJECTS_INFO_H
#define FARO_OBJECTS_INFO_H

#include "mpi.h"

#endif
