package org.depengine.api.device.primitive;

import org.depengine.api.device.Device;

/**
 * Marker of a device primitive: an interface of this package that a device may implement and offer
 * through {@link org.depengine.api.device.Device#primitive(Class)}. Implementations are stateless and
 * thread-safe; see the {@linkplain org.depengine.api.device.primitive package} for the common contract.
 *
 * <p>Each primitive interface checks its arguments once, in its default methods (with
 * {@link PrimitiveChecks}), and then calls an {@code enqueue...} method that the device implements. So
 * a device writes only the work itself, and its {@code enqueue...} methods may rely on the checks:
 * every buffer and the stream belong to {@link #device()}, every range fits, and there is work to do.
 * Callers use the checked methods; the {@code enqueue...} methods are for the default methods only.
 */
public interface Primitive {
    /**
     * The device this primitive runs on: the buffers and the stream of every call must be of it.
     *
     * @return the device this primitive runs on: the buffers and the stream of every call must be of it
     */
    Device device();
}
