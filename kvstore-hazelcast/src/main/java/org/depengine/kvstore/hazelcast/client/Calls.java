package org.depengine.kvstore.hazelcast.client;

import com.hazelcast.map.IMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.hz.CallbackThreads;
import org.depengine.kvstore.hazelcast.hz.KeyOp;
import org.depengine.kvstore.hazelcast.hz.KeyState;
import org.depengine.kvstore.hazelcast.hz.Reply;
import org.depengine.kvstore.hazelcast.hz.UpdaterClasses;

/**
 * A worker's calls to the keys' owners: each an entry processor on one map entry, completed from
 * Hazelcast's callback (on its response thread: {@link CallbackThreads#ON_RESPONSE_THREAD}), failed
 * with a {@link KVStoreException} naming the key, this rank and what was called when the owner answers
 * an error, Hazelcast fails the call, no answer comes within {@code timeoutMs}, or the store is closed.
 * Thread-safe.
 */
final class Calls {
    /** A barrier is a round of this key: a name no user key can clash with (never an empty string with NUL). */
    static final String BARRIER = "\u0000barrier";

    private final IMap<String, KeyState> map;
    /** This worker's rank now, for messages (an elastic job's changes with its view). */
    private final IntSupplier rank;
    private final long timeoutMs;
    private final ScheduledExecutorService timer;
    private final CallDeadlines deadlines;
    private final Supplier<String> closedBecause;

    Calls(IMap<String, KeyState> map, IntSupplier rank, long timeoutMs, ScheduledExecutorService timer, Supplier<String> closedBecause) {
        this.map = map;
        this.rank = rank;
        this.timeoutMs = timeoutMs;
        this.timer = timer;
        this.deadlines = new CallDeadlines(timer);
        this.closedBecause = closedBecause;
    }

    /** Runs {@code op} on {@code chunkKey}'s owner; {@code key} (null: store-wide) and {@code what} name it in failures. */
    CompletableFuture<Reply> call(String chunkKey, KeyOp op, String key, String what) {
        String closed = closedBecause.get();
        if (closed != null) {
            return CompletableFuture.failedFuture(failure(key, what, closed, null));
        }
        CompletableFuture<Reply> f = new CompletableFuture<>();
        CallbackThreads.submitToKey(map, chunkKey, op).whenCompleteAsync((reply, err) -> {
            if (err != null) {
                String refused = UpdaterClasses.refusal(err);
                f.completeExceptionally(failure(key, what, refused != null ? refused : err.toString(), err));
            } else if (reply.status() == Reply.Status.ERROR) {
                f.completeExceptionally(failure(key, what, reply.message(), null));
            } else {
                f.complete(reply);
            }
        }, CallbackThreads.ON_RESPONSE_THREAD);
        if (timer.isShutdown()) {
            f.completeExceptionally(failure(key, what, "the store is closing", null));
        } else {
            deadlines.add(f, timeoutMs, () -> f.completeExceptionally(failure(key, what,
                    "no answer from the key's owner within " + timeoutMs + " ms (depengine.kvstore.timeoutMs)", null)));
        }
        return f;
    }

    /** A failure of {@code what} on {@code key} (the barrier's: store-wide), naming this rank. */
    KVStoreException failure(String key, String what, String cause, Throwable err) {
        return new KVStoreException(BARRIER.equals(key) ? null : key, rank.getAsInt(), what + ": " + cause, err);
    }
}
