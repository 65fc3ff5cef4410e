package org.depengine.testkit;

import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceProvider;

/**
 * Device providers that exist only to provoke the device errors of the misuse catalogue: with testkit
 * on the path (it declares them for the module path and the class path alike), {@link MisuseConformance}
 * can push to a device type that is unavailable and to a device id that does not exist, without a GPU.
 */
public final class TestDeviceProviders {
    /** The type of {@link Unavailable}. */
    public static final String UNAVAILABLE_TYPE = "testkit_unavailable";
    /** The reason {@link Unavailable#probe()} gives. */
    public static final String UNAVAILABLE_REASON = "testkit stand-in for a device whose driver is missing";
    /** The type of {@link Empty}. */
    public static final String EMPTY_TYPE = "testkit_empty";

    private TestDeviceProviders() {
    }

    /** A device type that is present but unavailable, like CUDA without a driver. */
    public static final class Unavailable implements DeviceProvider {
        /** For {@link java.util.ServiceLoader}. */
        public Unavailable() {
        }

        @Override
        public String type() {
            return UNAVAILABLE_TYPE;
        }

        @Override
        public Availability probe() {
            return Availability.no(UNAVAILABLE_REASON);
        }

        @Override
        public int deviceCount() {
            return 0;
        }

        @Override
        public Device device(int id) {
            throw new IllegalStateException(UNAVAILABLE_TYPE + " is unavailable: " + UNAVAILABLE_REASON);
        }
    }

    /** A device type that is available but has no device, so every id is out of range. */
    public static final class Empty implements DeviceProvider {
        /** For {@link java.util.ServiceLoader}. */
        public Empty() {
        }

        @Override
        public String type() {
            return EMPTY_TYPE;
        }

        @Override
        public Availability probe() {
            return Availability.yes();
        }

        @Override
        public int deviceCount() {
            return 0;
        }

        @Override
        public Device device(int id) {
            throw new IllegalArgumentException(EMPTY_TYPE + " has no device " + id);
        }
    }
}
