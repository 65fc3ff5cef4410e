package org.depengine.core.tracker;

import org.depengine.api.FnProperty;

/**
 * The skip rule: whether an op about to run is skipped instead, and what failure it passes on to its
 * writes. The one place it is written; the engine applies it to every op it starts (also to one it
 * fails because its stream could not be had), and a bulk's merged op to each member, as if pushed alone.
 * <ol>
 *   <li>A cancelled op (a registration was refused) is skipped, passing nothing on.</li>
 *   <li>After {@code notifyShutdown}, a user op runs only if its property is
 *   {@link FnProperty#DELETE_VAR}; the others are skipped, passing nothing on.</li>
 *   <li>A user op that is not {@link FnProperty#NO_SKIP} takes over the first unreported failure of
 *   its variables (reads first, then writes) instead of running, and passes it on to its writes.</li>
 * </ol>
 * Internal ops (deletions, waits) obey only the first rule.
 */
public final class SkipRule {
    private SkipRule() {
    }

    /**
     * Applies the rule to a started op: skips it and returns true, or returns false if it may run.
     *
     * @param shutdownNotified whether the engine's {@code notifyShutdown} was called
     */
    public static boolean skipped(OpBlock op, boolean shutdownNotified) {
        OpDef def = op.def();
        if (op.isCancelled() || (shutdownNotified && def.kind() == OpDef.Kind.USER && def.prop() != FnProperty.DELETE_VAR)) {
            op.skip(null);
            return true;
        }
        Failure inherited = inherited(def);
        if (inherited != null) {
            op.skip(inherited);
            return true;
        }
        return false;
    }

    /** The failure an op (or a bulk member) defined by {@code def} takes over instead of running (rule 3), or null. */
    public static Failure inherited(OpDef def) {
        return def.kind() == OpDef.Kind.USER && def.prop() != FnProperty.NO_SKIP ? def.inheritedFailure() : null;
    }
}
