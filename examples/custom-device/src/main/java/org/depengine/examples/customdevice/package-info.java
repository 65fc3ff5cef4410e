/**
 * The {@code "sim"} device plugin: {@link org.depengine.examples.customdevice.SimDeviceProvider} (found
 * with {@link java.util.ServiceLoader}), {@link org.depengine.examples.customdevice.SimDevice},
 * {@link org.depengine.examples.customdevice.SimStream} (a lane with its own thread; its
 * {@code enqueue} is the plugin's kernel launch) and {@link org.depengine.examples.customdevice.SimBuffer}.
 */
package org.depengine.examples.customdevice;
