package org.depengine.engine.perdevice;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceProvider;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;

/**
 * A device plugin that lives only in the tests, found through META-INF/services like a third-party
 * jar: type "fake", two devices. Its streams finish work asynchronously on a "device" thread, so ops
 * are launched when their function returns and done later, as on a GPU.
 */
public final class FakeDeviceProvider implements DeviceProvider {
    private static final ExecutorService DEVICE_THREAD = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fake-device-completion");
        t.setDaemon(true);
        return t;
    });
    private final Device[] devices = {new FakeDevice(0), new FakeDevice(1)};

    @Override
    public String type() {
        return "fake";
    }

    @Override
    public Availability probe() {
        return Availability.yes();
    }

    @Override
    public int deviceCount() {
        return devices.length;
    }

    @Override
    public Device device(int id) {
        return devices[id];
    }

    static final class FakeDevice implements Device {
        private final Context ctx;

        FakeDevice(int id) {
            ctx = Context.of("fake", id);
        }

        @Override
        public Context context() {
            return ctx;
        }

        @Override
        public String description() {
            return "fake device " + ctx;
        }

        @Override
        public Stream createStream(StreamKind kind) {
            return new FakeStream(this, kind);
        }

        @Override
        public StreamPolicy policy(StreamKind kind) {
            return StreamPolicy.ON_COMPLETION;
        }

        @Override
        public boolean supportsStreamWait() {
            return false;
        }
    }

    static final class FakeStream implements Stream {
        private final Device device;
        private final StreamKind kind;
        volatile Thread boundTo;

        FakeStream(Device device, StreamKind kind) {
            this.device = device;
            this.kind = kind;
        }

        @Override
        public Device device() {
            return device;
        }

        @Override
        public StreamKind kind() {
            return kind;
        }

        @Override
        public void bindToCurrentThread() {
            boundTo = Thread.currentThread();
        }

        @Override
        public Event record() {
            return new Event() {
                @Override
                public boolean isDone() {
                    return true;
                }

                @Override
                public void await() {
                }
            };
        }

        @Override
        public void waitFor(Event event) {
            event.await();
        }

        @Override
        public void onComplete(Runnable callback) {
            DEVICE_THREAD.execute(callback); // in order: one device thread
        }

        @Override
        public void synchronize() {
        }

        @Override
        public Throwable takeAsyncError() {
            return null;
        }

        @Override
        public void close() {
        }
    }
}
