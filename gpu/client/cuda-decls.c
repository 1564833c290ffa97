/* What stubgen.py reads the runtime API's return types from: the build runs
 * this through cpp (gpu/Makefile.inc). */
#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>
