package org.depengine.api.device;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The base of a device provider: it probes once and caches the answer with its reason, honours
 * {@code -Ddepengine.device.<type>.disabled} before probing, checks ids, opens each device lazily and
 * once (thread-safely), and closes the devices it opened. A subclass says how to probe, how many
 * devices there are and how to open one; its constructor must touch no native code.
 *
 * <p>Ownership: this provider owns the devices it opens and closes them in {@link #close()}; see
 * {@link DeviceProvider} for when that happens. Thread-safe.
 *
 * @param <D> the device class
 */
public abstract class AbstractDeviceProvider<D extends Device> implements DeviceProvider {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractDeviceProvider.class);

    private final String type;
    private volatile Availability probed;
    private volatile int count;
    private final ConcurrentHashMap<Integer, D> opened = new ConcurrentHashMap<>();

    /**
     * A provider of the given type.
     *
     * @param type the device type this provider offers
     * @throws NullPointerException if {@code type} is null
     */
    protected AbstractDeviceProvider(String type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    /**
     * Finds out whether the type is usable here; called at most once, under a lock. May load native
     * code. A failure is an {@link Availability#no} with the reason; an exception thrown here is turned
     * into one too.
     *
     * @return whether the type is usable here, with the reason if not
     */
    protected abstract Availability detect();

    /**
     * How many devices there are; called once, after {@link #detect()} said the type is available.
     *
     * @return the number of devices
     */
    protected abstract int countDevices();

    /**
     * Opens device {@code id} ({@code 0 <= id < deviceCount()}); called once per id until
     * {@link #close()}, under a lock.
     *
     * @param id the device id, from 0
     * @return the opened device
     * @throws RuntimeException if it cannot be opened; it is reported as an {@link IllegalStateException}
     */
    protected abstract D open(int id);

    @Override
    public final String type() {
        return type;
    }

    /**
     * Disabled by the switch, or the answer of {@link #detect()}; the first answer is cached, so a switch
     * set or cleared later does not change it.
     *
     * @throws IllegalArgumentException if the switch has an invalid value (on the first call)
     */
    @Override
    public final Availability probe() {
        Availability a = probed;
        return a != null ? a : probeOnce();
    }

    private synchronized Availability probeOnce() {
        if (probed == null) {
            Availability a;
            int n = 0;
            // An invalid switch throws here, before anything is cached: a corrected one is read again.
            boolean disabled = DeviceProvider.isDisabled(type);
            try {
                a = disabled ? DeviceProvider.disabledAvailability(type) : detect();
                n = a.available() ? countDevices() : 0;
            } catch (RuntimeException | LinkageError e) {
                LOG.debug("probe of device type '{}' failed", type, e);
                a = Availability.no("probe failed: " + e);
            }
            count = n;
            probed = a;
            LOG.info("device type '{}': {}{}", type, a, a.available() ? " (" + describeCount(n) + ")" : "");
        }
        return probed;
    }

    @Override
    public final int deviceCount() {
        return probe().available() ? count : 0;
    }

    /** {@inheritDoc} A device that cannot be opened is an {@link IllegalStateException} with the cause. */
    @Override
    public final D device(int id) {
        Availability a = probe();
        if (!a.available()) {
            throw new IllegalStateException("device type '" + type + "' is unavailable: " + a.reason());
        }
        if (id < 0 || id >= count) {
            throw new IllegalArgumentException("device " + type + ":" + id + " does not exist: " + describeCount(count)
                    + " found");
        }
        D d = opened.get(id);
        return d != null ? d : openOnce(id);
    }

    private synchronized D openOnce(int id) {
        D d = opened.get(id);
        if (d == null) {
            try {
                d = open(id);
            } catch (RuntimeException e) {
                throw new IllegalStateException("device " + Context.of(type, id) + " could not be opened: "
                        + e.getMessage(), e);
            }
            opened.put(id, d);
            LOG.info("opened {}", d);
        }
        return d;
    }

    /** Closes the devices opened so far, logging (not throwing) a failure to close one. */
    @Override
    public synchronized void close() {
        List<D> devices = new ArrayList<>(opened.values());
        opened.clear();
        for (D d : devices) {
            try {
                d.close();
                LOG.debug("closed {}", d);
            } catch (RuntimeException e) {
                LOG.warn("closing {} failed", d, e);
            }
        }
    }

    private String describeCount(int n) {
        return n == Integer.MAX_VALUE ? "any id >= 0"
                : n + " device(s) of type '" + type + "'" + (n > 0 ? " (ids 0.." + (n - 1) + ")" : "");
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + type + "]";
    }
}
