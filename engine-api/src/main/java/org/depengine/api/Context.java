package org.depengine.api;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A device context: a device type ({@code "cpu"}, {@code "opencl"}, {@code "cuda"}, or a plugin's
 * type) and a device id. An immutable value; its text form is {@code "type:id"}, for example
 * {@code "cpu:0"}. Whether a context names a device that exists is checked when an op is pushed to
 * it, not here.
 */
public final class Context {
    private static final Pattern TYPE = Pattern.compile("[a-z][a-z0-9_]*");
    private static final Context CPU0 = new Context("cpu", 0);

    private final String deviceType;
    private final int deviceId;

    private Context(String deviceType, int deviceId) {
        this.deviceType = deviceType;
        this.deviceId = deviceId;
    }

    /**
     * The context {@code cpu:0}.
     *
     * @return the context {@code cpu:0}
     */
    public static Context cpu() {
        return CPU0;
    }

    /**
     * A CPU context. Any id ≥ 0 is a logical CPU device (as in MXNet): ops on different ids run on
     * different worker blocks of a per-device engine. Ids need not be small or dense: an engine keeps
     * its worker blocks in a map keyed by id, made on first use, so {@code cpu(2_000_000_000)} costs
     * what {@code cpu(1)} does.
     *
     * @param id the id, ≥ 0
     * @return the context {@code cpu:id}
     * @throws IllegalArgumentException if {@code id} is negative
     */
    public static Context cpu(int id) {
        return id == 0 ? CPU0 : of("cpu", id);
    }

    /**
     * The context of device {@code deviceId} of type {@code deviceType}.
     *
     * @param deviceType the device type, e.g. {@code "opencl"}
     * @param deviceId the device id, ≥ 0
     * @return the context of device {@code deviceId} of type {@code deviceType}
     * @throws NullPointerException if {@code deviceType} is null
     * @throws IllegalArgumentException if the type is not lower-case letters, digits and '_'
     *     starting with a letter, or the id is negative
     */
    public static Context of(String deviceType, int deviceId) {
        Objects.requireNonNull(deviceType, "deviceType");
        if (!TYPE.matcher(deviceType).matches()) {
            throw new IllegalArgumentException("device type '" + deviceType
                    + "' is not valid: use lower-case letters, digits and '_', starting with a letter (e.g. \"cpu\")");
        }
        if (deviceId < 0) {
            throw new IllegalArgumentException("device id must be >= 0, got " + deviceId + " for type '" + deviceType + "'");
        }
        return new Context(deviceType, deviceId);
    }

    /**
     * Parses {@code "type:id"}, or {@code "type"} alone for id 0 ({@code "cpu"} = {@code "cpu:0"}).
     * Surrounding blanks are ignored.
     *
     * @param text the text to parse
     * @return the context it names
     * @throws NullPointerException if {@code text} is null
     * @throws IllegalArgumentException if the text is not of that form
     */
    public static Context parse(String text) {
        Objects.requireNonNull(text, "text");
        String s = text.strip();
        int colon = s.indexOf(':');
        if (colon < 0) {
            return of(s, 0);
        }
        String idText = s.substring(colon + 1);
        int id;
        try {
            id = Integer.parseInt(idText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cannot parse device context '" + text
                    + "': expected \"type:id\" with a non-negative integer id, e.g. \"cpu:0\" or \"opencl:1\"", e);
        }
        return of(s.substring(0, colon), id);
    }

    /**
     * The device type, e.g. {@code "cpu"}.
     *
     * @return the device type, e.g. {@code "cpu"}
     */
    public String deviceType() {
        return deviceType;
    }

    /**
     * The device id, ≥ 0.
     *
     * @return the device id, ≥ 0
     */
    public int deviceId() {
        return deviceId;
    }

    /**
     * Whether this is a CPU context.
     *
     * @return whether this is a CPU context
     */
    public boolean isCpu() {
        return "cpu".equals(deviceType);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Context c && c.deviceId == deviceId && c.deviceType.equals(deviceType);
    }

    @Override
    public int hashCode() {
        return deviceType.hashCode() * 31 + deviceId;
    }

    /** {@code "type:id"}, e.g. {@code "cpu:0"}; {@link #parse} reads it back. */
    @Override
    public String toString() {
        return deviceType + ":" + deviceId;
    }
}
