/*
 * The session with faro-gpud, made once per process at the first call that
 * needs the device (remote.h). FARO_GPU_SERVERS=host[:port][/gpu],... names
 * the servers; the key comes from FARO_GPU_KEY_FILE or FARO_GPU_KEY.
 *
 * Until the wire channel (gpu/wire/channel.h, issue 16) is in the build,
 * connecting fails at once: cudaErrorNoDevice when FARO_GPU_SERVERS is unset
 * or empty, cudaErrorInitializationError when it names servers, each with one
 * message that names FARO_GPU_SERVERS. The outcome is kept: every later call
 * gets the same error without trying again (and without waiting).
 */
#include <pthread.h>
#include <stdlib.h>

#include "gpu/client/remote.h"

static pthread_once_t connect_once = PTHREAD_ONCE_INIT;
static cudaError_t connect_result = cudaErrorInitializationError;

static void connect_servers(void)
{
    const char *servers = getenv("FARO_GPU_SERVERS");
    if (!servers || !*servers) {
        faro_cudart_msg("no GPU server: FARO_GPU_SERVERS is not set "
                        "(FARO_GPU_SERVERS=host[:port][/gpu],...; see faro-gpu(7))");
        connect_result = cudaErrorNoDevice;
        return;
    }
    faro_cudart_msg("cannot reach FARO_GPU_SERVERS=%s: this build of the client has no wire "
                    "channel to faro-gpud yet (see faro-gpu(7))", servers);
    connect_result = cudaErrorInitializationError;
}

cudaError_t faro_cudart_connect(void)
{
    pthread_once(&connect_once, connect_servers);
    return connect_result;
}

cudaStream_t faro_cudart_stream(cudaStream_t stream)
{
    if (stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return NULL;
    return stream;
}
