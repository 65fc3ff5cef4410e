package org.depengine.api.device;

import java.util.Objects;

/**
 * Whether a device type can be used on this machine, and if not, why ("libcuda.so.1 not found",
 * "disabled by -Ddepengine.device.cuda.disabled=true").
 *
 * @param available whether devices of the type can be opened
 * @param reason why not; empty when available
 */
public record Availability(boolean available, String reason) {
    private static final Availability YES = new Availability(true, "");

    /**
     * Checks the reason.
     *
     * @param available whether devices of the type can be opened
     * @param reason why not; empty when available
     * @throws NullPointerException if {@code reason} is null
     */
    public Availability {
        Objects.requireNonNull(reason, "reason");
    }

    /**
     * The type is usable.
     *
     * @return the answer "usable"
     */
    public static Availability yes() {
        return YES;
    }

    /**
     * The type is not usable, for the given reason.
     *
     * @param reason why not, e.g. {@code "libcuda.so.1 not found"}
     * @return the answer "not usable"
     */
    public static Availability no(String reason) {
        return new Availability(false, reason);
    }

    @Override
    public String toString() {
        return available ? "available" : "unavailable: " + reason;
    }
}
