package org.depengine.device.cuda;

import static org.depengine.api.device.primitive.PrimitiveChecks.buffer;
import static org.depengine.api.device.primitive.PrimitiveChecks.elements;

import jcuda.CudaException;
import org.depengine.api.EngineException;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.PrimitiveChecks;

/** What the CUDA primitives share: argument checks, the device's kernels, error wrapping. */
abstract class CudaPrimitive {
    final CudaDevice device;

    CudaPrimitive(CudaDevice device) {
        this.device = device;
    }

    /** The stream, checked to be a CUDA stream of this device. */
    final CudaStream cuda(Stream stream) {
        return PrimitiveChecks.stream(device, stream, CudaStream.class);
    }

    /** The buffer, checked to be of this device and to hold {@code count} floats. */
    final CudaBuffer floats(DeviceBuffer b, String name, long count) {
        CudaBuffer cb = buffer(device, b, name, CudaBuffer.class);
        elements(cb, name, 0, count);
        return cb;
    }

    final CudaKernels kernels() {
        return device.kernels();
    }

    static EngineException failure(CudaStream stream, String what, CudaException e) {
        return new EngineException("CUDA error on " + stream + ": could not " + what + ": " + e.getMessage(), e);
    }
}
