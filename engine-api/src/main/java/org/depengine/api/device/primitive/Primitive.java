package org.depengine.api.device.primitive;

/**
 * Marker of a device primitive: an interface of this package that a device may implement and offer
 * through {@link org.depengine.api.device.Device#primitive(Class)}. Implementations are stateless and
 * thread-safe; see the {@linkplain org.depengine.api.device.primitive package} for the common contract.
 */
public interface Primitive {
}
