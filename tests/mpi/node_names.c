/* node_names: a node is what the launcher calls a host. Ranks that share an
 * MPI_COMM_TYPE_SHARED communicator must report the same
 * MPI_Get_processor_name and ranks that do not must report different ones;
 * with TEST_NODES=N there must be N distinct names. Run across namespace
 * hosts that all answer gethostname() alike (tests/launcher/multihost.sh),
 * it fails when the library takes gethostname() for the node. */
#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "node_names");
    int want_nodes = tu_env_int("TEST_NODES", 0);

    char name[MPI_MAX_PROCESSOR_NAME];
    int len;
    memset(name, 0, sizeof name);
    TU_CHECK(MPI_Get_processor_name(name, &len));

    /* The world rank of each rank's node leader (rank 0 of its shared comm). */
    MPI_Comm node;
    int leader = tu_rank, nsize;
    TU_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    TU_CHECK(MPI_Comm_size(node, &nsize));
    TU_CHECK(MPI_Bcast(&leader, 1, MPI_INT, 0, node));

    char *names = malloc((size_t)tu_size * MPI_MAX_PROCESSOR_NAME);
    int *leaders = malloc((size_t)tu_size * sizeof *leaders);
    TU_ASSERT(names && leaders, "out of memory");
    TU_CHECK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                           MPI_CHAR, MPI_COMM_WORLD));
    TU_CHECK(MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD));

    int distinct = 0;
    char list[1024] = "";
    for (int i = 0; i < tu_size; i++) {
        const char *ni = names + (size_t)i * MPI_MAX_PROCESSOR_NAME;
        int first = 1;
        for (int j = 0; j < tu_size; j++) {
            const char *nj = names + (size_t)j * MPI_MAX_PROCESSOR_NAME;
            int same_name = strcmp(ni, nj) == 0, same_node = leaders[i] == leaders[j];
            TU_ASSERT(same_name == same_node,
                      "rank %d (processor %s) and rank %d (processor %s) %s one "
                      "MPI_COMM_TYPE_SHARED communicator", i, ni, j, nj,
                      same_node ? "share" : "do not share");
            if (j < i && same_name)
                first = 0;
        }
        if (first) {
            distinct++;
            snprintf(list + strlen(list), sizeof list - strlen(list), " %s", ni);
        }
    }
    if (want_nodes > 0)
        TU_ASSERT(distinct == want_nodes, "%d distinct processor names (%s), expected %d (one "
                  "per host the launcher used)", distinct, list, want_nodes);
    if (tu_rank == 0)
        printf("node_names: %d ranks on %d node(s):%s\n", tu_size, distinct, list);
    free(names);
    free(leaders);
    TU_CHECK(MPI_Comm_free(&node));
    tu_finish();
    return 0;
}
