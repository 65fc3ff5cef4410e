package org.depengine.api.device;

import org.depengine.api.FnProperty;

/** The role of a stream: which ops an engine sends to it. */
public enum StreamKind {
    /** Kernels and other compute work. */
    COMPUTE,
    /** Copies from the host to the device ({@link FnProperty#COPY_TO_DEVICE}). */
    HOST_TO_DEVICE,
    /** Copies from the device to the host ({@link FnProperty#COPY_FROM_DEVICE}). */
    DEVICE_TO_HOST;

    /**
     * The stream kind that ops of this property run on.
     *
     * @param prop the op's property
     * @return the stream kind that ops of this property run on
     */
    public static StreamKind of(FnProperty prop) {
        switch (prop) {
            case COPY_TO_DEVICE:
                return HOST_TO_DEVICE;
            case COPY_FROM_DEVICE:
                return DEVICE_TO_HOST;
            default:
                return COMPUTE;
        }
    }
}
