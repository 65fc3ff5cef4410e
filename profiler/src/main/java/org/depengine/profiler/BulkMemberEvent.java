package org.depengine.profiler;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The JFR event a {@link Profiler} commits when a member of a bulk's merged op
 * ({@link org.depengine.api.Engine#bulk(int)}) ends, while JFR records {@value #NAME}: the merged op
 * itself is an {@link OpEvent}, its members are these, committed on the thread that ran them right
 * after each (so the event's time is the member's end). Enable it in a recording as {@link OpEvent};
 * when it is not enabled the profiler does not even create it.
 *
 * <p>Instances are created and committed by the profiler only; they are not thread-safe.
 */
@Name(BulkMemberEvent.NAME)
@Label("depengine Bulk Member")
@Category({"depengine"})
@Description("One member of a depengine bulk's merged op: its name, outcome and run time")
@StackTrace(false)
public final class BulkMemberEvent extends jdk.jfr.Event {
    /** The JFR event type name. */
    public static final String NAME = "org.depengine.BulkMember";

    /** The merged op's id (the {@code opId} of its {@link OpEvent}). */
    @Label("Bulk Op Id")
    public long bulkId;

    /** The merged op's name, {@code bulk[n]: first..last}. */
    @Label("Bulk Name")
    public String bulkName;

    /** The member's position in the merged op, from 0, in push order. */
    @Label("Index")
    public int index;

    /** The member's name. */
    @Label("Member Name")
    public String memberName;

    /** DONE, FAILED or SKIPPED. */
    @Label("Outcome")
    public String outcome;

    /** From the member's start to its end; 0 when it was skipped. */
    @Label("Run Time")
    @Timespan(Timespan.NANOSECONDS)
    public long runTime;

    /** An empty event; the profiler fills in the fields before it commits it. */
    public BulkMemberEvent() {
    }
}
