package org.depengine.api.device;

import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Context;

/**
 * Device type {@value #TYPE} for the tests of this package (registered in META-INF/services): two
 * synchronous devices; counts probes, opens and closes.
 */
public final class CountingDeviceProvider extends AbstractDeviceProvider<SynchronousDevice> {
    static final String TYPE = "apitest";
    static final AtomicInteger DETECTS = new AtomicInteger();
    static final AtomicInteger OPENS = new AtomicInteger();
    static final AtomicInteger CLOSES = new AtomicInteger();

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
    protected SynchronousDevice open(int id) {
        OPENS.incrementAndGet();
        return new SynchronousDevice(Context.of(TYPE, id), "counting device " + id) {
            @Override
            public void close() {
                CLOSES.incrementAndGet();
            }
        };
    }
}
