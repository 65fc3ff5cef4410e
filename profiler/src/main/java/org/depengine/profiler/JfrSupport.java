package org.depengine.profiler;

import jdk.jfr.EventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether JFR records {@link OpEvent}s (and {@link BulkMemberEvent}s) now: one cheap check per event, so a profiler pays nothing more
 * for JFR while no recording enables the event. Not part of the API.
 */
/*
 * Kept apart from Profiler so that a runtime without the jdk.jfr module (a jlinked image, on the class
 * path) only loses the JFR events: Profiler itself never links against jdk.jfr classes unless the
 * type loaded here.
 */
final class JfrSupport {
    private static final Logger LOG = LoggerFactory.getLogger(JfrSupport.class);
    private static final EventType TYPE = load(OpEvent.class, OpEvent.NAME);
    private static final EventType MEMBER_TYPE = TYPE == null ? null : load(BulkMemberEvent.class, BulkMemberEvent.NAME);

    private JfrSupport() {
    }

    private static EventType load(Class<? extends jdk.jfr.Event> type, String name) {
        try {
            return EventType.getEventType(type);
        } catch (LinkageError | RuntimeException e) {
            LOG.debug("JFR is not available; no {} events", name, e);
            return null;
        }
    }

    /** True while at least one recording enables {@link OpEvent}. */
    static boolean enabled() {
        return TYPE != null && TYPE.isEnabled();
    }

    /** True while at least one recording enables {@link BulkMemberEvent}. */
    static boolean membersEnabled() {
        return MEMBER_TYPE != null && MEMBER_TYPE.isEnabled();
    }
}
