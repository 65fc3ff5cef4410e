package org.depengine.device.opencl;

import static org.jocl.CL.CL_DEVICE_NAME;
import static org.jocl.CL.CL_DEVICE_TYPE_ALL;
import static org.jocl.CL.CL_DEVICE_NOT_FOUND;
import static org.jocl.CL.CL_PLATFORM_NAME;
import static org.jocl.CL.clGetDeviceIDs;
import static org.jocl.CL.clGetDeviceInfo;
import static org.jocl.CL.clGetPlatformIDs;
import static org.jocl.CL.clGetPlatformInfo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceProvider;
import org.jocl.CL;
import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.cl_device_id;
import org.jocl.cl_platform_id;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code "opencl"} device type: every device of every OpenCL platform, numbered in platform order
 * then device order ({@code opencl:0}, {@code opencl:1}, ...).
 *
 * <p>The constructor touches no native code. The first {@link #probe()} loads JOCL's native library
 * and the OpenCL ICD loader ({@code libOpenCL.so}) and lists the devices; a missing loader, no
 * platform, or no device make the type unavailable with the reason, never an exception. The answer is
 * cached for the life of the provider. {@code -Ddepengine.device.opencl.disabled=true} switches the
 * type off before any native code is touched. Thread-safe.
 */
public final class OpenClDeviceProvider implements DeviceProvider {
    /** The device type name. */
    public static final String TYPE = "opencl";

    private static final Logger LOG = LoggerFactory.getLogger(OpenClDeviceProvider.class);

    /** What {@link #probe()} found; immutable once published. */
    private record ProbeResult(Availability availability, List<DeviceInfo> devices) {
    }

    /** One OpenCL device found by the probe. */
    record DeviceInfo(cl_platform_id platform, String platformName, cl_device_id device, String deviceName) {
    }

    private volatile ProbeResult probed;
    private volatile AtomicReferenceArray<OpenClDevice> opened;

    /** For {@link java.util.ServiceLoader}: touches no native code. */
    public OpenClDeviceProvider() {
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
        return result().devices().size();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Opening a device creates its OpenCL context; the device then lives as long as the JVM (the
     * driver reclaims it at exit). A context that cannot be created is an {@link IllegalStateException}
     * too, with OpenCL's error.
     */
    @Override
    public Device device(int id) {
        ProbeResult r = result();
        if (!r.availability().available()) {
            throw new IllegalStateException("device type '" + TYPE + "' is unavailable: " + r.availability().reason());
        }
        if (id < 0 || id >= r.devices().size()) {
            throw new IllegalArgumentException("device " + TYPE + ":" + id + " does not exist: " + r.devices().size()
                    + " OpenCL device(s) found (ids 0.." + (r.devices().size() - 1) + ")");
        }
        AtomicReferenceArray<OpenClDevice> devices = opened;
        OpenClDevice d = devices.get(id);
        if (d != null) {
            return d;
        }
        synchronized (this) {
            d = devices.get(id);
            if (d == null) {
                DeviceInfo info = r.devices().get(id);
                try {
                    d = new OpenClDevice(Context.of(TYPE, id), info);
                } catch (CLException e) {
                    throw new IllegalStateException("device " + TYPE + ":" + id + " (" + info.deviceName()
                            + ") could not be opened: " + CL.stringFor_errorCode(e.getStatus()), e);
                }
                devices.set(id, d);
                LOG.info("opened {}: {}", d.context(), d.description());
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
                    opened = new AtomicReferenceArray<>(r.devices().size());
                    probed = r;
                    if (r.availability().available()) {
                        LOG.info("OpenCL available: {} device(s): {}", r.devices().size(),
                                r.devices().stream().map(i -> i.platformName() + ": " + i.deviceName()).toList());
                    } else {
                        LOG.info("OpenCL unavailable: {}", r.availability().reason());
                    }
                }
            }
        }
        return r;
    }

    private static ProbeResult runProbe() {
        if (DeviceProvider.isDisabled(TYPE)) {
            return new ProbeResult(Availability.no("disabled by -D" + DeviceProvider.disabledProperty(TYPE) + "=true"),
                    List.of());
        }
        try {
            // The first touch of CL loads JOCL's JNI library and libOpenCL.so; failures surface as
            // LinkageError (UnsatisfiedLinkError, or NoClassDefFoundError on a second attempt).
            CL.setExceptionsEnabled(true);
            List<DeviceInfo> found = listDevices();
            if (found.isEmpty()) {
                return new ProbeResult(Availability.no("no OpenCL device found (platforms are installed, but none "
                        + "reports a device)"), List.of());
            }
            return new ProbeResult(Availability.yes(), List.copyOf(found));
        } catch (LinkageError e) {
            LOG.debug("OpenCL native libraries could not be loaded", e);
            return new ProbeResult(Availability.no(linkReason(e)), List.of());
        } catch (CLException e) {
            LOG.debug("OpenCL probe failed", e);
            return new ProbeResult(Availability.no(clReason(e)), List.of());
        } catch (RuntimeException e) {
            LOG.debug("OpenCL probe failed", e);
            return new ProbeResult(Availability.no("OpenCL probe failed: " + e), List.of());
        }
    }

    private static List<DeviceInfo> listDevices() {
        int[] count = new int[1];
        clGetPlatformIDs(0, null, count);
        List<DeviceInfo> found = new ArrayList<>();
        if (count[0] == 0) {
            return found;
        }
        cl_platform_id[] platforms = new cl_platform_id[count[0]];
        clGetPlatformIDs(platforms.length, platforms, null);
        for (cl_platform_id platform : platforms) {
            String platformName = platformString(platform, CL_PLATFORM_NAME);
            int[] n = new int[1];
            try {
                clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, null, n);
            } catch (CLException e) {
                // A platform without devices answers CL_DEVICE_NOT_FOUND instead of 0.
                if (e.getStatus() == CL_DEVICE_NOT_FOUND) {
                    continue;
                }
                throw e;
            }
            if (n[0] == 0) {
                continue;
            }
            cl_device_id[] ids = new cl_device_id[n[0]];
            clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, ids.length, ids, null);
            for (cl_device_id id : ids) {
                found.add(new DeviceInfo(platform, platformName, id, deviceString(id, CL_DEVICE_NAME)));
            }
        }
        return found;
    }

    private static String linkReason(LinkageError e) {
        String msg = String.valueOf(e.getMessage());
        if (msg.contains("libOpenCL") || msg.contains("OpenCL")) {
            return "OpenCL ICD loader not found (" + firstLine(msg) + "); install one, e.g. ocl-icd-opencl-dev, "
                    + "and a driver such as pocl-opencl-icd";
        }
        return "JOCL native library could not be loaded: " + e.getClass().getSimpleName() + ": " + firstLine(msg);
    }

    private static String clReason(CLException e) {
        // -1001 = CL_PLATFORM_NOT_FOUND_KHR: the ICD loader is there but no driver is registered.
        if (e.getStatus() == -1001) {
            return "no OpenCL platform installed (CL_PLATFORM_NOT_FOUND_KHR): install a driver, e.g. pocl-opencl-icd";
        }
        return "OpenCL probe failed: " + CL.stringFor_errorCode(e.getStatus()) + " (" + e.getMessage() + ")";
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }

    static String platformString(cl_platform_id platform, int param) {
        long[] size = new long[1];
        clGetPlatformInfo(platform, param, 0, null, size);
        byte[] buf = new byte[(int) size[0]];
        clGetPlatformInfo(platform, param, buf.length, Pointer.to(buf), null);
        return cString(buf);
    }

    static String deviceString(cl_device_id device, int param) {
        long[] size = new long[1];
        clGetDeviceInfo(device, param, 0, null, size);
        byte[] buf = new byte[(int) size[0]];
        clGetDeviceInfo(device, param, buf.length, Pointer.to(buf), null);
        return cString(buf);
    }

    private static String cString(byte[] buf) {
        int len = 0;
        while (len < buf.length && buf[len] != 0) {
            len++;
        }
        return new String(buf, 0, len, StandardCharsets.UTF_8).strip();
    }
}
