package org.depengine.device.cuda;

import java.util.Objects;
import java.util.function.Supplier;
import jcuda.CudaException;
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.AbstractDeviceProvider;
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
 * again after a failure, so later calls cannot hit JCuda's "Could not initialize class" (the caching
 * is {@link AbstractDeviceProvider}'s).
 * {@code -Ddepengine.device.cuda.disabled=true} switches the type off before anything is loaded.
 * Thread-safe.
 */
public final class CudaDeviceProvider extends AbstractDeviceProvider<CudaDevice> {
    /** The device type name. */
    public static final String TYPE = "cuda";

    private static final Logger LOG = LoggerFactory.getLogger(CudaDeviceProvider.class);

    private final Supplier<CudaDriver> driverFactory;
    /** The driver {@link #detect()} initialised; written before the availability is published. */
    private volatile CudaDriver driver;
    private volatile int count;

    /** For {@link java.util.ServiceLoader}: touches no native code. */
    public CudaDeviceProvider() {
        this(JCudaDriverBinding::new);
    }

    /** With another driver binding (unit tests: a mock). */
    CudaDeviceProvider(Supplier<CudaDriver> driverFactory) {
        super(TYPE);
        this.driverFactory = Objects.requireNonNull(driverFactory, "driverFactory");
    }

    @Override
    protected Availability detect() {
        try {
            CudaDriver d = driverFactory.get();
            d.init();
            int n = d.deviceCount();
            if (n <= 0) {
                return Availability.no("no CUDA device found (the driver is loaded; cuDeviceGetCount returned " + n + ")");
            }
            driver = d;
            count = n;
            return Availability.yes();
        } catch (LinkageError e) {
            LOG.debug("CUDA native libraries could not be loaded", e);
            return Availability.no(linkReason(e));
        } catch (CudaException e) {
            LOG.debug("CUDA initialisation failed", e);
            return Availability.no(cudaReason(e));
        }
    }

    @Override
    protected int countDevices() {
        return count;
    }

    /**
     * Retains the device's primary context, kept until this provider is closed. A device that cannot be
     * opened (e.g. its context cannot be created) is an {@link IllegalStateException} with CUDA's error.
     */
    @Override
    protected CudaDevice open(int id) {
        return new CudaDevice(Context.of(TYPE, id), driver, id);
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
