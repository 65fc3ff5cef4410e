package org.depengine.device.cuda;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import jcuda.CudaException;
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code "cuda"} device type: every CUDA GPU, as {@code cuda:0}, {@code cuda:1}, ...
 *
 * <p>The constructor touches no native code. The first {@link #probe()} loads JCuda's driver library
 * (extracting it itself, so that it works on the module path too), calls {@code cuInit} and
 * {@code cuDeviceGetCount} with JCuda's exceptions on, and catches what can go wrong: no NVIDIA driver
 * ({@code libcuda.so.1} missing: an {@link UnsatisfiedLinkError}), no GPU or an old driver (a
 * {@link CudaException}), anything else. The answer and its reason are cached; JCuda is never touched
 * again after a failure, so later calls cannot hit JCuda's "Could not initialize class".
 * {@code -Ddepengine.device.cuda.disabled=true} switches the type off before anything is loaded.
 * Thread-safe.
 */
public final class CudaDeviceProvider implements DeviceProvider {
    /** The device type name. */
    public static final String TYPE = "cuda";

    private static final Logger LOG = LoggerFactory.getLogger(CudaDeviceProvider.class);

    private record ProbeResult(Availability availability, CudaDriver driver, int count) {
    }

    private final Supplier<CudaDriver> driverFactory;
    private volatile ProbeResult probed;
    private volatile AtomicReferenceArray<CudaDevice> opened;

    /** For {@link java.util.ServiceLoader}: touches no native code. */
    public CudaDeviceProvider() {
        this(JCudaDriverBinding::new);
    }

    /** With another driver binding (unit tests: a mock). */
    CudaDeviceProvider(Supplier<CudaDriver> driverFactory) {
        this.driverFactory = Objects.requireNonNull(driverFactory, "driverFactory");
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Availability probe() {
        return result().availability();
    }

    @Override
    public int deviceCount() {
        return result().count();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Opening a device retains its primary context and keeps it for the life of the JVM. A device
     * that cannot be opened (e.g. its context cannot be created) is an {@link IllegalStateException} too,
     * with CUDA's error.
     */
    @Override
    public Device device(int id) {
        ProbeResult r = result();
        if (!r.availability().available()) {
            throw new IllegalStateException("device type '" + TYPE + "' is unavailable: " + r.availability().reason());
        }
        if (id < 0 || id >= r.count()) {
            throw new IllegalArgumentException("device " + TYPE + ":" + id + " does not exist: " + r.count()
                    + " CUDA device(s) found (ids 0.." + (r.count() - 1) + ")");
        }
        AtomicReferenceArray<CudaDevice> devices = opened;
        CudaDevice d = devices.get(id);
        if (d != null) {
            return d;
        }
        synchronized (this) {
            d = devices.get(id);
            if (d == null) {
                try {
                    d = new CudaDevice(Context.of(TYPE, id), r.driver(), id);
                } catch (CudaException e) {
                    throw new IllegalStateException("device " + TYPE + ":" + id + " could not be opened: "
                            + e.getMessage(), e);
                }
                devices.set(id, d);
                LOG.info("opened {}", d);
            }
            return d;
        }
    }

    private ProbeResult result() {
        ProbeResult r = probed;
        if (r == null) {
            synchronized (this) {
                r = probed;
                if (r == null) {
                    r = runProbe();
                    opened = new AtomicReferenceArray<>(r.count());
                    probed = r;
                    if (r.availability().available()) {
                        LOG.info("CUDA available: {} device(s)", r.count());
                    } else {
                        LOG.info("CUDA unavailable: {}", r.availability().reason());
                    }
                }
            }
        }
        return r;
    }

    private ProbeResult runProbe() {
        if (DeviceProvider.isDisabled(TYPE)) {
            return unavailable("disabled by -D" + DeviceProvider.disabledProperty(TYPE) + "=true");
        }
        try {
            CudaDriver driver = driverFactory.get();
            driver.init();
            int count = driver.deviceCount();
            if (count <= 0) {
                return unavailable("no CUDA device found (the driver is loaded; cuDeviceGetCount returned " + count + ")");
            }
            return new ProbeResult(Availability.yes(), driver, count);
        } catch (LinkageError e) {
            LOG.debug("CUDA native libraries could not be loaded", e);
            return unavailable(linkReason(e));
        } catch (CudaException e) {
            LOG.debug("CUDA initialisation failed", e);
            return unavailable(cudaReason(e));
        } catch (RuntimeException e) {
            LOG.debug("CUDA probe failed", e);
            return unavailable("CUDA probe failed: " + e);
        }
    }

    private static ProbeResult unavailable(String reason) {
        return new ProbeResult(Availability.no(reason), null, 0);
    }

    /** The reason for a native loading failure, in one line. */
    static String linkReason(LinkageError e) {
        String msg = String.valueOf(e.getMessage());
        if (msg.contains("libcuda.so")) {
            return "libcuda.so.1 not found (no NVIDIA driver installed on this machine)";
        }
        if (msg.contains("No resource found")) {
            return "JCuda native library not found: add jcuda-natives (classifier linux-x86_64) to the class or "
                    + "module path";
        }
        return "JCuda native library could not be loaded: " + e.getClass().getSimpleName() + ": " + firstLine(msg);
    }

    /** The reason for a CUDA error during initialisation. */
    static String cudaReason(CudaException e) {
        String msg = String.valueOf(e.getMessage());
        if (msg.contains("CUDA_ERROR_NO_DEVICE")) {
            return "no CUDA device found (cuInit returned CUDA_ERROR_NO_DEVICE)";
        }
        if (msg.contains("CUDA_ERROR_INSUFFICIENT_DRIVER") || msg.contains("CUDA_ERROR_COMPAT_NOT_SUPPORTED")) {
            return "the NVIDIA driver is too old for JCuda 12.6 (" + firstLine(msg) + ")";
        }
        return "CUDA initialisation failed: " + firstLine(msg);
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }
}
