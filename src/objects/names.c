/*
 * The name service: MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name.
 *
 * Names live in the process manager (base/pmi.c: the PMI-1 commands
 * publish_name, lookup_name, unpublish_name), so their scope is one launch:
 * the ranks of one Faro mpiexec (or one Hydra mpiexec) see each other's
 * names; two jobs started separately do not share them, and a singleton has
 * none. Those pass port names themselves (a file, the command line,
 * MPI_Comm_join). The info argument is checked and otherwise ignored.
 */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "base/pmi.h"
#include "base/pmi_wire.h"

#define NO_SERVICE_HINT                                                                       \
    "; pass the port name to the other side another way (a file, the command line, "        \
    "MPI_Comm_join), or start both sides under one mpiexec"

/* The service said no, or there is none: cls with its reason. */
static int refused(const char *fn, int cls, const char *what, const char *service, int rc,
                   const char *err)
{
    return faro_err(MPI_COMM_NULL, cls, "%s: cannot %s '%s': %s%s", fn, what, service, err,
                    rc == FARO_PMI_NO_SERVICE ? NO_SERVICE_HINT : "");
}

static int check(const char *fn, const char *service, MPI_Info info, const char *port_name)
{
    int nkeys;
    if (!service)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: service_name is NULL", fn);
    if (!*service || strlen(service) > FARO_PMI_VAL_MAX / 2)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: service_name is %s (1..%d "
                        "characters)", fn, *service ? "too long" : "empty",
                        FARO_PMI_VAL_MAX / 2);
    if (!port_name)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: port_name is NULL", fn);
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    return MPI_SUCCESS;
}

#pragma weak MPI_Publish_name = PMPI_Publish_name
int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Publish_name";
    int rc = check(fn, service_name, info, port_name);
    if (rc)
        return rc;
    if (!*port_name || strlen(port_name) >= MPI_MAX_PORT_NAME)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: port_name is %s (MPI_Open_port "
                        "gives one)", fn, *port_name ? "too long" : "empty");
    char err[512];
    rc = faro_pmi_publish(service_name, port_name, err, sizeof err);
    return rc ? refused(fn, MPI_ERR_SERVICE, "publish", service_name, rc, err) : MPI_SUCCESS;
}

#pragma weak MPI_Lookup_name = PMPI_Lookup_name
int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Lookup_name";
    int rc = check(fn, service_name, info, port_name);
    if (rc)
        return rc;
    char err[512];
    rc = faro_pmi_lookup(service_name, port_name, MPI_MAX_PORT_NAME, err, sizeof err);
    if (rc == -2)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NAME, "%s: no service '%s' is published (%s; "
                        "names are seen only by the processes of one mpiexec)", fn,
                        service_name, err);
    return rc ? refused(fn, MPI_ERR_NAME, "look up", service_name, rc, err) : MPI_SUCCESS;
}

#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name
int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Unpublish_name";
    int rc = check(fn, service_name, info, port_name);
    if (rc)
        return rc;
    char err[512];
    rc = faro_pmi_unpublish(service_name, err, sizeof err);
    return rc ? refused(fn, MPI_ERR_SERVICE, "unpublish", service_name, rc, err) : MPI_SUCCESS;
}
