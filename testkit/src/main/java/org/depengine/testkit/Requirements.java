package org.depengine.testkit;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.depengine.api.device.Availability;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine (a device type such as {@code opencl}, or a tool such as
 * {@code chromium}): missing, the test is skipped with a message that says what to install, unless
 * the name is listed in {@value #PROPERTY} (comma-separated), where it fails instead. CI lists what
 * it installs, so that a build that silently tested nothing cannot pass there. Thread-safe.
 */
public final class Requirements {
    /** The system property listing what must be present, e.g. {@code opencl,chromium}. */
    public static final String PROPERTY = "depengine.test.requireDevices";

    private Requirements() {
    }

    /** The names listed in {@value #PROPERTY}, read now. */
    public static Set<String> required() {
        String v = System.getProperty(PROPERTY, "");
        return Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    }

    /**
     * Skips the calling test (or class, from {@code @BeforeAll}) when {@code name} is absent, failing
     * it instead if {@code name} is required.
     *
     * @param name the device type or tool, as listed in {@value #PROPERTY}
     * @param present whether it is here
     * @param whatToInstall the message: what is missing and how to get it
     * @throws AssertionError if it is absent and required
     */
    public static void assume(String name, boolean present, String whatToInstall) {
        if (!present && required().contains(name)) {
            throw new AssertionError(name + " is required here (-D" + PROPERTY + "=" + System.getProperty(PROPERTY)
                    + ") but missing: " + whatToInstall);
        }
        Assumptions.assumeTrue(present, () -> whatToInstall + " (to make this a failure instead of a skip: -D"
                + PROPERTY + "=" + name + ")");
    }

    /** As {@link #assume(String, boolean, String)} for a device type's {@link Availability}. */
    public static void assumeDevice(String type, Availability a, String whatToInstall) {
        assume(type, a.available(), whatToInstall + ": " + a.reason());
    }
}
