package org.depengine.device.cpu;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;

/**
 * A logical CPU device. Its streams are synchronous lanes: an op's work is done when its function
 * returns, so events are complete when recorded and the policy is {@link StreamPolicy#SYNCHRONOUS}.
 * Its memory is host memory (direct buffers).
 */
final class CpuDevice implements Device {
    private final Context context;

    CpuDevice(Context context) {
        this.context = context;
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public String description() {
        return "logical CPU device " + context.deviceId() + " (" + Runtime.getRuntime().availableProcessors() + " cores)";
    }

    @Override
    public Stream createStream(StreamKind kind) {
        return new CpuStream(this, kind);
    }

    @Override
    public StreamPolicy policy(StreamKind kind) {
        return StreamPolicy.SYNCHRONOUS;
    }

    /** A CPU lane never needs a device-side wait: its work is done when the driving op returns. */
    @Override
    public boolean supportsStreamWait() {
        return false;
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("CPU buffers hold 0.." + Integer.MAX_VALUE + " bytes, asked for " + bytes);
        }
        return new CpuBuffer(this, ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder()));
    }

    @Override
    public String toString() {
        return "CpuDevice[" + context + "]";
    }
}
