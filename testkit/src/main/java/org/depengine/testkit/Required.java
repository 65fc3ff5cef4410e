package org.depengine.testkit;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Tests that need something this machine may lack (an OpenCL runtime, a browser): skipped where it is
 * missing, but failed where the build says it must be there. CI installs PoCL and Chromium and runs with
 * {@code -Ddepengine.test.require=opencl,chromium}, so a regression that makes the OpenCL probe answer
 * "unavailable" fails the build instead of quietly skipping every OpenCL test. Thread-safe.
 */
public final class Required {
    /** The system property that lists what must be present, comma-separated (e.g. {@code opencl,chromium}). */
    public static final String PROPERTY = "depengine.test.require";

    private Required() {
    }

    /**
     * Returns if {@code available}; otherwise fails the test when {@code what} is listed in
     * {@value #PROPERTY}, and aborts it (skipped, with {@code why}) when it is not.
     */
    public static void assumeAvailable(String what, boolean available, String why) {
        if (available) {
            return;
        }
        if (required().contains(what)) {
            Assertions.fail(what + " must be present in this build (-D" + PROPERTY + "=" + System.getProperty(PROPERTY)
                    + ") but is not: " + why);
        }
        Assumptions.abort(why);
    }

    private static Set<String> required() {
        return Arrays.stream(System.getProperty(PROPERTY, "").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    }
}
