/*
 * cudaDeviceProp from the attribute list the server sends (GET_DEVICE_PROPS:
 * pairs of CU_DEVICE_ATTRIBUTE_* number and value, which equal cudaDevAttr*).
 * The name, UUID and total memory come in the reply's other fields; a field
 * whose attribute the server does not send stays 0.
 */
#include "gpu/client/remote.h"

#define SET(attr, field) case attr: prop->field = value; break
#define SET_SIZE(attr, field) case attr: prop->field = (size_t)(unsigned)value; break

void faro_cudart_prop_set(struct cudaDeviceProp *prop, int attr, int value)
{
    switch (attr) {
    SET(cudaDevAttrMaxThreadsPerBlock, maxThreadsPerBlock);
    SET(cudaDevAttrMaxBlockDimX, maxThreadsDim[0]);
    SET(cudaDevAttrMaxBlockDimY, maxThreadsDim[1]);
    SET(cudaDevAttrMaxBlockDimZ, maxThreadsDim[2]);
    SET(cudaDevAttrMaxGridDimX, maxGridSize[0]);
    SET(cudaDevAttrMaxGridDimY, maxGridSize[1]);
    SET(cudaDevAttrMaxGridDimZ, maxGridSize[2]);
    SET_SIZE(cudaDevAttrMaxSharedMemoryPerBlock, sharedMemPerBlock);
    SET_SIZE(cudaDevAttrTotalConstantMemory, totalConstMem);
    SET(cudaDevAttrWarpSize, warpSize);
    SET_SIZE(cudaDevAttrMaxPitch, memPitch);
    SET(cudaDevAttrMaxRegistersPerBlock, regsPerBlock);
    SET_SIZE(cudaDevAttrTextureAlignment, textureAlignment);
    SET(cudaDevAttrMultiProcessorCount, multiProcessorCount);
    SET(cudaDevAttrIntegrated, integrated);
    SET(cudaDevAttrCanMapHostMemory, canMapHostMemory);
    SET(cudaDevAttrMaxTexture1DWidth, maxTexture1D);
    SET(cudaDevAttrMaxTexture2DWidth, maxTexture2D[0]);
    SET(cudaDevAttrMaxTexture2DHeight, maxTexture2D[1]);
    SET(cudaDevAttrMaxTexture3DWidth, maxTexture3D[0]);
    SET(cudaDevAttrMaxTexture3DHeight, maxTexture3D[1]);
    SET(cudaDevAttrMaxTexture3DDepth, maxTexture3D[2]);
    SET_SIZE(cudaDevAttrSurfaceAlignment, surfaceAlignment);
    SET(cudaDevAttrConcurrentKernels, concurrentKernels);
    SET(cudaDevAttrEccEnabled, ECCEnabled);
    SET(cudaDevAttrPciBusId, pciBusID);
    SET(cudaDevAttrPciDeviceId, pciDeviceID);
    SET(cudaDevAttrPciDomainId, pciDomainID);
    SET(cudaDevAttrTccDriver, tccDriver);
    SET(cudaDevAttrGlobalMemoryBusWidth, memoryBusWidth);
    SET(cudaDevAttrL2CacheSize, l2CacheSize);
    SET(cudaDevAttrMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor);
    SET(cudaDevAttrAsyncEngineCount, asyncEngineCount);
    SET(cudaDevAttrUnifiedAddressing, unifiedAddressing);
    SET_SIZE(cudaDevAttrTexturePitchAlignment, texturePitchAlignment);
    SET(cudaDevAttrComputeCapabilityMajor, major);
    SET(cudaDevAttrComputeCapabilityMinor, minor);
    SET(cudaDevAttrStreamPrioritiesSupported, streamPrioritiesSupported);
    SET(cudaDevAttrGlobalL1CacheSupported, globalL1CacheSupported);
    SET(cudaDevAttrLocalL1CacheSupported, localL1CacheSupported);
    SET_SIZE(cudaDevAttrMaxSharedMemoryPerMultiprocessor, sharedMemPerMultiprocessor);
    SET(cudaDevAttrMaxRegistersPerMultiprocessor, regsPerMultiprocessor);
    SET(cudaDevAttrIsMultiGpuBoard, isMultiGpuBoard);
    SET(cudaDevAttrMultiGpuBoardGroupID, multiGpuBoardGroupID);
    SET(cudaDevAttrHostNativeAtomicSupported, hostNativeAtomicSupported);
    SET(cudaDevAttrComputePreemptionSupported, computePreemptionSupported);
    SET(cudaDevAttrCooperativeLaunch, cooperativeLaunch);
    SET_SIZE(cudaDevAttrMaxSharedMemoryPerBlockOptin, sharedMemPerBlockOptin);
    SET(cudaDevAttrMaxBlocksPerMultiprocessor, maxBlocksPerMultiProcessor);
    SET(cudaDevAttrMaxPersistingL2CacheSize, persistingL2CacheMaxSize);
    SET(cudaDevAttrMaxAccessPolicyWindowSize, accessPolicyMaxWindowSize);
    SET_SIZE(cudaDevAttrReservedSharedMemoryPerBlock, reservedSharedMemPerBlock);
    SET(cudaDevAttrClusterLaunch, clusterLaunch);
    SET(cudaDevAttrGpuPciDeviceId, gpuPciDeviceID);
    SET(cudaDevAttrGpuPciSubsystemId, gpuPciSubsystemID);
    /* Offload: the program cannot reach the remote GPU's memory directly. */
    case cudaDevAttrManagedMemory:
    case cudaDevAttrPageableMemoryAccess:
    case cudaDevAttrConcurrentManagedAccess:
    case cudaDevAttrHostRegisterSupported:
        break;
    default:
        break;
    }
}
