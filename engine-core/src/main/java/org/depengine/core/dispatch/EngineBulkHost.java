package org.depengine.core.dispatch;

import org.depengine.api.Context;
import org.depengine.core.bulk.BulkHost;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.wait.FailureLedger;

/** What an engine's bulks need of it: registering a merged op, checking a member's context, failures. */
final class EngineBulkHost implements BulkHost {
    private final Dispatcher engine;
    private final FailureLedger failures;

    EngineBulkHost(Dispatcher engine, FailureLedger failures) {
        this.engine = engine;
        this.failures = failures;
    }

    @Override
    public void submitMerged(OpDef def, Context ctx, int priority, Runnable registered) {
        engine.submit(def, ctx, priority, true, registered);
    }

    @Override
    public void checkContext(Context ctx) {
        engine.device(ctx); // a bad context is refused at the member's push, not at the flush
    }

    @Override
    public Failure memberFailed(Throwable error, String memberName) {
        Failure f = new Failure(error, memberName);
        failures.record(f);
        return f;
    }
}
