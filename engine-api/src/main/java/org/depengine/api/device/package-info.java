/**
 * The device SPI, after OneFlow's split: a {@link org.depengine.api.device.DeviceProvider} per device
 * type finds the {@link org.depengine.api.device.Device}s; a device makes
 * {@link org.depengine.api.device.Stream}s (ordered lanes of work) and
 * {@link org.depengine.api.device.Event}s; a {@link org.depengine.api.device.StreamPolicy} says when an
 * op on a stream counts as launched and as done. {@link org.depengine.api.device.Devices} looks
 * providers up by type. A device may offer device primitives (copies, matrix multiply, element-wise
 * maths, ...) of {@link org.depengine.api.device.primitive} through
 * {@link org.depengine.api.device.Device#primitive(Class)}.
 *
 * <p>A third-party device is a jar with a {@code DeviceProvider}, declared with {@code provides} in its
 * module-info and in {@code META-INF/services}; nothing in depengine changes. The skeletons do the common
 * work: {@link org.depengine.api.device.AbstractDeviceProvider} (probe once, the disabled switch, lazy
 * opening, closing), {@link org.depengine.api.device.SynchronousDevice} and
 * {@link org.depengine.api.device.SynchronousStream} (a device whose work runs on the driving thread),
 * {@link org.depengine.api.device.AsynchronousDevice} (a device whose streams complete asynchronously),
 * and the two policies {@link org.depengine.api.device.StreamPolicy#SYNCHRONOUS} and
 * {@link org.depengine.api.device.StreamPolicy#ON_COMPLETION}. Engines take devices with
 * {@link org.depengine.api.device.Devices#acquire} and give them back when they close; the providers own
 * the devices and close them when the last engine using their type has closed (see
 * {@link org.depengine.api.device.Devices} for who owns what).
 */
package org.depengine.api.device;
