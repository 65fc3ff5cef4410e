package org.depengine.profiler;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The JFR event a {@link Profiler} commits when an op finishes, while JFR records
 * {@value #NAME}. Enable it in a recording ({@code jfr configure}, a {@code .jfc} file, or
 * {@code recording.enable("org.depengine.Op")}); when it is not enabled the profiler does not even
 * create it. Durations the profiler could not tell (an op whose earlier events it missed) are -1.
 *
 * <p>Instances are created and committed by the profiler only; they are not thread-safe.
 */
@Name(OpEvent.NAME)
@Label("depengine Op")
@Category({"depengine"})
@Description("One op run by a depengine engine: where it ran and how long it waited and ran")
@StackTrace(false)
public final class OpEvent extends jdk.jfr.Event {
    /** The JFR event type name. */
    public static final String NAME = "org.depengine.Op";

    /** The op's id, unique within its engine. */
    @Label("Op Id")
    public long opId;

    /** The op's name. */
    @Label("Op Name")
    public String opName;

    /** The device context, e.g. {@code cpu:0}. */
    @Label("Device")
    public String device;

    /** The stream it ran on ({@code "COMPUTE#0"}), or null. */
    @Label("Stream")
    public String stream;

    /** The op's {@link org.depengine.api.FnProperty}. */
    @Label("Property")
    public String property;

    /** The priority it was pushed with. */
    @Label("Priority")
    public int priority;

    /** DONE, FAILED or SKIPPED. */
    @Label("Outcome")
    public String outcome;

    /** From ready to started. */
    @Label("Queue Wait")
    @Timespan(Timespan.NANOSECONDS)
    public long queueWait;

    /** From started to finished. */
    @Label("Run Time")
    @Timespan(Timespan.NANOSECONDS)
    public long runTime;

    /** From started to launched (device ops), else the run time. */
    @Label("Host Time")
    @Timespan(Timespan.NANOSECONDS)
    public long hostTime;

    /** From launched to finished (device ops), else 0. */
    @Label("Device Time")
    @Timespan(Timespan.NANOSECONDS)
    public long deviceTime;

    /** An empty event; the profiler fills in the fields before it commits it. */
    public OpEvent() {
    }
}
