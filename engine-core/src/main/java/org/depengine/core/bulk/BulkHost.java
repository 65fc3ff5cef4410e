package org.depengine.core.bulk;

import org.depengine.api.Context;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpDef;

/** What bulk execution needs of the engine's dispatch core. */
public interface BulkHost {
    /**
     * Pushes a merged op. {@code registered} runs on the calling thread right after the op is
     * registered on its variables, before it may run; it does not run if the push throws before that.
     */
    void submitMerged(OpDef def, Context ctx, int priority, Runnable registered);

    /**
     * Checks a context as a push does (its device is known and available), so that a member is refused
     * when pushed, not when its bulk is flushed.
     */
    void checkContext(Context ctx);

    /** Records a member's failure as the engine's own (for {@code waitForAll}) and returns it. */
    Failure memberFailed(Throwable error, String memberName);
}
