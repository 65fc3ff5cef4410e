package org.depengine.api.device;

import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Context;

/**
 * Device type {@value #TYPE} for the tests of this package (registered in META-INF/services): two
 * synchronous devices; counts probes, opens and closes, and closes of a device already closed.
 */
public final class CountingDeviceProvider extends AbstractDeviceProvider<CountingDeviceProvider.CountingDevice> {
    static final String TYPE = "apitest";
    static final AtomicInteger DETECTS = new AtomicInteger();
    static final AtomicInteger OPENS = new AtomicInteger();
    static final AtomicInteger CLOSES = new AtomicInteger();
    static final AtomicInteger DOUBLE_CLOSES = new AtomicInteger();

    /** A device that knows whether it was closed. */
    public static class CountingDevice extends SynchronousDevice {
        volatile boolean closed;

        CountingDevice(String type, int id) {
            super(Context.of(type, id), "counting device " + id);
        }

        @Override
        public void close() {
            if (closed) {
                DOUBLE_CLOSES.incrementAndGet();
            }
            closed = true;
            CLOSES.incrementAndGet();
        }
    }

    public CountingDeviceProvider() {
        super(TYPE);
    }

    @Override
    protected Availability detect() {
        DETECTS.incrementAndGet();
        return Availability.yes();
    }

    @Override
    protected int countDevices() {
        return 2;
    }

    @Override
    protected CountingDevice open(int id) {
        OPENS.incrementAndGet();
        return new CountingDevice(TYPE, id);
    }

    /** Type {@value #TYPE}: for the test that pins a type for good with {@link Devices#device}. */
    public static final class ForPinning extends AbstractDeviceProvider<CountingDevice> {
        static final String TYPE = "apitest_pinned";
        static final AtomicInteger CLOSES = new AtomicInteger();

        public ForPinning() {
            super(TYPE);
        }

        @Override
        protected Availability detect() {
            return Availability.yes();
        }

        @Override
        protected int countDevices() {
            return 1;
        }

        @Override
        protected CountingDevice open(int id) {
            return new CountingDevice(TYPE, id) {
                @Override
                public void close() {
                    ForPinning.CLOSES.incrementAndGet();
                }
            };
        }
    }
}
