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
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.AbstractDeviceProvider;
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
 * cached for the life of the provider ({@link AbstractDeviceProvider}). {@code
 * -Ddepengine.device.opencl.disabled=true} switches the type off before any native code is touched.
 * Thread-safe.
 */
public final class OpenClDeviceProvider extends AbstractDeviceProvider<OpenClDevice> {
    /** The device type name. */
    public static final String TYPE = "opencl";
    /** PoCL's platform name (CL_PLATFORM_NAME), whose driver installs signal handlers of its own. */
    static final String POCL = "Portable Computing Language";

    private static final Logger LOG = LoggerFactory.getLogger(OpenClDeviceProvider.class);

    /** One OpenCL device found by the probe. */
    record DeviceInfo(cl_platform_id platform, String platformName, cl_device_id device, String deviceName) {
    }

    /** What {@link #detect()} found; written once, before the availability is published. */
    private volatile List<DeviceInfo> found = List.of();

    /** For {@link java.util.ServiceLoader}: touches no native code. */
    public OpenClDeviceProvider() {
        super(TYPE);
    }

    @Override
    protected Availability detect() {
        try {
            // The first touch of CL loads JOCL's JNI library and libOpenCL.so; failures surface as
            // LinkageError (UnsatisfiedLinkError, or NoClassDefFoundError on a second attempt).
            CL.setExceptionsEnabled(true);
            found = List.copyOf(listDevices());
            if (found.isEmpty()) {
                return Availability.no("no OpenCL device found (platforms are installed, but none reports a device)");
            }
            LOG.info("OpenCL devices: {}", found.stream().map(i -> i.platformName() + ": " + i.deviceName()).toList());
            warnWithoutSignalChaining(found);
            return Availability.yes();
        } catch (LinkageError e) {
            LOG.debug("OpenCL native libraries could not be loaded", e);
            return Availability.no(linkReason(e));
        } catch (CLException e) {
            LOG.debug("OpenCL probe failed", e);
            return Availability.no(clReason(e));
        }
    }

    @Override
    protected int countDevices() {
        return found.size();
    }

    /**
     * Creates the device's OpenCL context; the device lives until this provider is closed. A context that
     * cannot be created is an {@link IllegalStateException} with OpenCL's error.
     */
    @Override
    protected OpenClDevice open(int id) {
        DeviceInfo info = found.get(id);
        try {
            return new OpenClDevice(Context.of(TYPE, id), info);
        } catch (CLException e) {
            throw new IllegalStateException(info.deviceName() + ": " + CL.stringFor_errorCode(e.getStatus()), e);
        }
    }

    /**
     * Warns once per probe when a PoCL platform is loaded and the JVM's signal-chaining library is not:
     * the JVM may then die with SIGSEGV at any later moment, which no exception could report (see
     * {@link SignalChaining}).
     */
    private static void warnWithoutSignalChaining(List<DeviceInfo> devices) {
        if (devices.stream().anyMatch(d -> d.platformName().contains(POCL))
                && !SignalChaining.loaded(SignalChaining.PROC_MAPS).orElse(true)) {
            LOG.warn("OpenCL platform '{}' installs signal handlers of its own, and the JVM's signal-chaining "
                    + "library is not loaded: the JVM may crash with SIGSEGV and no hs_err file. To prevent it, {}",
                    POCL, SignalChaining.advice());
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
