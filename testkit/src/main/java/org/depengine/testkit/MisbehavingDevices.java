package org.depengine.testkit;

import java.util.Arrays;
import org.depengine.api.Context;
import org.depengine.api.device.AbstractDevice;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceProvider;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.depengine.api.device.SynchronousStream;

/**
 * A device plugin that breaks the device contract on purpose, for {@link MisbehavingDeviceConformance}:
 * device {@code testkit_misbehaving:N} commits the {@link Offence} of ordinal N on every call of that
 * kind, and is otherwise a well-behaved asynchronous device (its ops are done when the policy says so,
 * never when their function returns). Stateless and thread-safe; declared as a service like
 * {@link TestDeviceProviders}.
 */
public final class MisbehavingDevices implements DeviceProvider {
    /** The device type. */
    public static final String TYPE = "testkit_misbehaving";

    /** What device {@code testkit_misbehaving:<ordinal>} does wrong. */
    public enum Offence {
        /** Nothing: a well-behaved device whose ops are launched, then done from the policy. */
        NONE,
        /** {@link Device#createStream} throws. */
        CREATE_STREAM_THROWS,
        /** {@link Device#createStream} returns null. */
        CREATE_STREAM_RETURNS_NULL,
        /** {@link Stream#bindToCurrentThread()} throws. */
        BIND_THROWS,
        /** {@link Device#policy} returns null. */
        POLICY_RETURNS_NULL,
        /** {@link StreamPolicy#whenDone} calls its callback twice, synchronously. */
        DONE_TWICE,
        /** {@link StreamPolicy#whenDone} throws without calling its callback. */
        WHEN_DONE_THROWS;

        /** The context of the device that commits this offence. */
        public Context context() {
            return Context.of(TYPE, ordinal());
        }
    }

    /** The message of every exception the plugin throws on purpose. */
    public static final String MESSAGE = "testkit misbehaving device";

    /** For {@link java.util.ServiceLoader}. */
    public MisbehavingDevices() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Availability probe() {
        return Availability.yes();
    }

    @Override
    public int deviceCount() {
        return Offence.values().length;
    }

    @Override
    public Device device(int id) {
        if (id < 0 || id >= DEVICES.length) {
            throw new IllegalArgumentException(TYPE + " has no device " + id);
        }
        return DEVICES[id];
    }

    private static final BadDevice[] DEVICES = Arrays.stream(Offence.values()).map(BadDevice::new)
            .toArray(BadDevice[]::new);

    /** A well-behaved asynchronous-looking device but for its {@link Offence}. */
    private static final class BadDevice extends AbstractDevice {
        private final Offence offence;
        private final StreamPolicy policy;

        BadDevice(Offence offence) {
            super(offence.context(), MESSAGE + " (" + offence + ")");
            this.offence = offence;
            this.policy = new StreamPolicy() {
                @Override
                public boolean doneOnReturn() {
                    return false;
                }

                @Override
                public void whenDone(Stream stream, Runnable done) {
                    if (offence == Offence.WHEN_DONE_THROWS) {
                        throw new IllegalStateException(MESSAGE + ": whenDone refused");
                    }
                    done.run();
                    if (offence == Offence.DONE_TWICE) {
                        done.run();
                    }
                }
            };
        }

        @Override
        public Stream createStream(StreamKind kind) {
            switch (offence) {
                case CREATE_STREAM_THROWS:
                    throw new IllegalStateException(MESSAGE + ": no streams today");
                case CREATE_STREAM_RETURNS_NULL:
                    return null;
                case BIND_THROWS:
                    return new BindThrows(new SynchronousStream(this, kind));
                default:
                    // Work runs on the calling thread; the policy above still says "not done on return".
                    return new SynchronousStream(this, kind);
            }
        }

        @Override
        public StreamPolicy policy(StreamKind kind) {
            return offence == Offence.POLICY_RETURNS_NULL ? null : policy;
        }

        @Override
        public boolean supportsStreamWait() {
            return false;
        }
    }

    /** A {@link SynchronousStream} that refuses to be bound to a thread. */
    private static final class BindThrows implements Stream {
        private final Stream lane;

        BindThrows(Stream lane) {
            this.lane = lane;
        }

        @Override
        public void bindToCurrentThread() {
            throw new IllegalStateException(MESSAGE + ": cannot bind");
        }

        @Override
        public Device device() {
            return lane.device();
        }

        @Override
        public StreamKind kind() {
            return lane.kind();
        }

        @Override
        public Event record() {
            return lane.record();
        }

        @Override
        public void waitFor(Event event) {
            lane.waitFor(event);
        }

        @Override
        public void onComplete(Runnable callback) {
            lane.onComplete(callback);
        }

        @Override
        public void synchronize() {
            lane.synchronize();
        }

        @Override
        public Throwable takeAsyncError() {
            return lane.takeAsyncError();
        }

        @Override
        public void close() {
            lane.close();
        }
    }
}
