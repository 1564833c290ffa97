/*
 * MPI_T events (MPI-4.0 section 15.3.8) and their sources. Faro defines no
 * event types yet, which the standard allows: MPI_T_event_get_num says 0,
 * and as no registration or event instance can exist, every call that takes
 * one refuses it with MPI_T_ERR_INVALID_HANDLE (an index, with
 * MPI_T_ERR_INVALID_INDEX). There is one source, the process's monotonic
 * clock in nanoseconds, the clock an event's timestamp would come from.
 */
#include <limits.h>
#include <time.h>

#include "mpit/mpit.h"

/* A call that can only refuse (its arguments unused). */
static inline void unused_args(int n, ...)
{
    (void)n;
}
#define REFUSE(code, ...)                                                              \
    FARO_MPIT_ENTER();                                                                 \
    unused_args(0, __VA_ARGS__);                                                       \
    return code

#pragma weak MPI_T_source_get_num = PMPI_T_source_get_num
int PMPI_T_source_get_num(int *num_sources)
{
    FARO_MPIT_ENTER();
    if (!num_sources)
        return MPI_T_ERR_INVALID;
    *num_sources = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_source_get_info = PMPI_T_source_get_info
int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
                           int *desc_len, MPI_T_source_order *ordering,
                           MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
    FARO_MPIT_ENTER();
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    faro_mpit_copy("clock", name, name_len);
    faro_mpit_copy("the process's monotonic clock (CLOCK_MONOTONIC), in nanoseconds", desc,
                   desc_len);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = LLONG_MAX;
    if (info) /* no hints to give */
        *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_source_get_timestamp = PMPI_T_source_get_timestamp
int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    FARO_MPIT_ENTER();
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (!timestamp)
        return MPI_T_ERR_INVALID;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *timestamp = (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_event_get_num = PMPI_T_event_get_num
int PMPI_T_event_get_num(int *num_events)
{
    FARO_MPIT_ENTER();
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_event_get_info = PMPI_T_event_get_info
int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    REFUSE(MPI_T_ERR_INVALID_INDEX, event_index, name, name_len, verbosity, array_of_datatypes,
           array_of_displacements, num_elements, enumtype, info, desc, desc_len, bind);
}

#pragma weak MPI_T_event_get_index = PMPI_T_event_get_index
int PMPI_T_event_get_index(const char *name, int *event_index)
{
    FARO_MPIT_ENTER();
    if (!name || !event_index)
        return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}

#pragma weak MPI_T_event_handle_alloc = PMPI_T_event_handle_alloc
int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    REFUSE(MPI_T_ERR_INVALID_INDEX, event_index, obj_handle, info, event_registration);
}

/* The calls on a registration or an instance: none can exist. */
#define NO_HANDLE(...) REFUSE(MPI_T_ERR_INVALID_HANDLE, __VA_ARGS__)

#pragma weak MPI_T_event_handle_set_info = PMPI_T_event_handle_set_info
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    NO_HANDLE(event_registration, info);
}

#pragma weak MPI_T_event_handle_get_info = PMPI_T_event_handle_get_info
int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                 MPI_Info *info_used)
{
    NO_HANDLE(event_registration, info_used);
}

#pragma weak MPI_T_event_register_callback = PMPI_T_event_register_callback
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    NO_HANDLE(event_registration, cb_safety, info, user_data, event_cb_function);
}

#pragma weak MPI_T_event_callback_set_info = PMPI_T_event_callback_set_info
int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    NO_HANDLE(event_registration, cb_safety, info);
}

#pragma weak MPI_T_event_callback_get_info = PMPI_T_event_callback_get_info
int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    NO_HANDLE(event_registration, cb_safety, info_used);
}

#pragma weak MPI_T_event_handle_free = PMPI_T_event_handle_free
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    NO_HANDLE(event_registration, user_data, free_cb_function);
}

#pragma weak MPI_T_event_set_dropped_handler = PMPI_T_event_set_dropped_handler
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    NO_HANDLE(event_registration, dropped_cb_function);
}

#pragma weak MPI_T_event_read = PMPI_T_event_read
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    NO_HANDLE(event_instance, element_index, buffer);
}

#pragma weak MPI_T_event_copy = PMPI_T_event_copy
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    NO_HANDLE(event_instance, buffer);
}

#pragma weak MPI_T_event_get_timestamp = PMPI_T_event_get_timestamp
int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    NO_HANDLE(event_instance, event_timestamp);
}

#pragma weak MPI_T_event_get_source = PMPI_T_event_get_source
int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    NO_HANDLE(event_instance, source_index);
}
