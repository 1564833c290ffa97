/*
 * spawn_names: the name service is the launch's, spawned jobs included.
 * Parent rank 0 publishes a name before spawning 2 children; child rank 1
 * looks it up (and finds the parent's port) and publishes a name of its
 * own, which parent rank 0 looks up after the children said so; then each
 * side unpublishes its own name, and a lookup of the child's name fails
 * with MPI_ERR_NAME at the parent. With per-mpiexec tables (before), the
 * child's lookup failed.
 */
#include "util.h"

#define PARENT_NAME "faro-spawn_names-parent"
#define CHILD_NAME "faro-spawn_names-child"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "spawn_names");
    MPI_Comm parent, ic;
    char port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME];
    int token = 0;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        if (tu_rank == 1) {
            TU_CHECK(MPI_Lookup_name(PARENT_NAME, MPI_INFO_NULL, found));
            TU_ASSERT(!strncmp(found, "faro-port:", 10), "the parent's name gave '%.40s'", found);
            TU_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
            TU_CHECK(MPI_Publish_name(CHILD_NAME, MPI_INFO_NULL, port));
            TU_CHECK(MPI_Send(&token, 1, MPI_INT, 0, 1, parent)); /* published */
            TU_CHECK(MPI_Recv(&token, 1, MPI_INT, 0, 2, parent, MPI_STATUS_IGNORE));
            TU_CHECK(MPI_Unpublish_name(CHILD_NAME, MPI_INFO_NULL, port));
            TU_CHECK(MPI_Close_port(port));
        }
        TU_CHECK(MPI_Comm_disconnect(&parent));
        TU_CHECK(MPI_Finalize());
        return 0;
    }
    if (tu_rank == 0) {
        TU_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
        TU_CHECK(MPI_Publish_name(PARENT_NAME, MPI_INFO_NULL, port));
    }
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* published before the children look */
    TU_CHECK(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                            MPI_ERRCODES_IGNORE));
    if (tu_rank == 0) {
        TU_CHECK(MPI_Recv(&token, 1, MPI_INT, 1, 1, ic, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Lookup_name(CHILD_NAME, MPI_INFO_NULL, found));
        TU_ASSERT(!strncmp(found, "faro-port:", 10), "the child's name gave '%.40s'", found);
        TU_CHECK(MPI_Send(&token, 1, MPI_INT, 1, 2, ic)); /* it may unpublish now */
    }
    TU_CHECK(MPI_Comm_disconnect(&ic)); /* after the child's unpublish */
    if (tu_rank == 0) {
        TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        tu_expect(MPI_Lookup_name(CHILD_NAME, MPI_INFO_NULL, found), MPI_ERR_NAME,
                  "MPI_Lookup_name", "the child's name after its unpublish");
        TU_CHECK(MPI_Unpublish_name(PARENT_NAME, MPI_INFO_NULL, port));
        TU_CHECK(MPI_Close_port(port));
    }
    tu_finish();
    return 0;
}
