package org.depengine.device.opencl;

import static org.depengine.api.device.primitive.PrimitiveChecks.buffer;
import static org.depengine.api.device.primitive.PrimitiveChecks.elements;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.PrimitiveChecks;

/** What the OpenCL primitives share: argument checks, the kernels of {@link PrimitiveKernels}, launch sizes. */
abstract class OpenClPrimitive {
    /** 1-D launches are rounded up to a multiple of this, so that OpenCL can pick a good work-group size. */
    static final int GRAIN = 64;
    /** The largest work-group of the per-row reduction kernels. */
    static final int MAX_ROW_GROUP = 256;

    final OpenClDevice device;

    OpenClPrimitive(OpenClDevice device) {
        this.device = device;
    }

    /** The stream, checked to be a queue of this device. */
    final OpenClStream queue(Stream stream) {
        return PrimitiveChecks.stream(device, stream, OpenClStream.class);
    }

    /** The buffer, checked to be of this device and to hold {@code count} floats. */
    final OpenClBuffer floats(DeviceBuffer b, String name, long count) {
        OpenClBuffer cb = buffer(device, b, name, OpenClBuffer.class);
        elements(cb, name, 0, count);
        return cb;
    }

    final OpenClKernel kernel(String name) {
        return device.kernel(PrimitiveKernels.SOURCE, name);
    }

    /** Launches a 1-D kernel over {@code n} items (the kernel ignores items past {@code n}); none if 0. */
    final void launch1d(OpenClStream queue, String kernel, long n, Object... args) {
        if (n == 0) {
            return;
        }
        kernel(kernel).launch(queue, new long[] {roundUp(n, GRAIN)}, args);
    }

    /**
     * The work-group size of a per-row reduction: a power of two, at most {@link #MAX_ROW_GROUP} and what
     * the kernel allows, and no larger than needed for {@code cols} columns.
     */
    static int rowGroup(OpenClKernel kernel, int cols) {
        long limit = Math.min(MAX_ROW_GROUP, kernel.maxWorkGroupSize());
        int size = Integer.highestOneBit((int) limit);
        int needed = cols <= 1 ? 1 : Integer.highestOneBit(cols - 1) << 1;
        return Math.max(1, Math.min(size, needed));
    }

    static long roundUp(long n, long multiple) {
        return (n + multiple - 1) / multiple * multiple;
    }
}
