package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.membership.ElasticMembership;
import org.depengine.kvstore.hazelcast.membership.ViewChange;
import org.depengine.kvstore.hazelcast.protocol.View;

/**
 * What one worker's {@link ElasticMembership} told it, with when (nanos) and on which threads; the waits
 * are bounded monitor waits woken by each event, never sleeps.
 */
final class ElasticEvents implements ElasticMembership.Listener {
    final List<ViewChange> changes = new ArrayList<>(); // guarded by this
    private final List<Long> at = new ArrayList<>();
    final Set<String> threads = ConcurrentHashMap.newKeySet();
    /** What the listener saw that breaks the contract (a listener that threw would only be logged). */
    private final List<String> problems = new ArrayList<>();
    private KVStoreException failure;
    volatile long failedAt;

    @Override
    public synchronized void changed(ViewChange change) {
        threads.add(Thread.currentThread().getName());
        if (failure != null) {
            problems.add("view " + change.epoch() + " delivered after the failure " + failure.getMessage());
        }
        changes.add(change);
        at.add(System.nanoTime());
        notifyAll();
    }

    @Override
    public synchronized void failed(KVStoreException f) {
        threads.add(Thread.currentThread().getName());
        if (failure != null) {
            problems.add("a second failure: " + f.getMessage() + " after " + failure.getMessage());
        }
        failedAt = System.nanoTime();
        failure = f;
        notifyAll();
    }

    /** The change to {@code epoch}, waiting up to {@code seconds} for it; it is the epoch-th change. */
    synchronized ViewChange awaitChange(int epoch, long seconds) {
        await(() -> changes.size() >= epoch, seconds, "view " + epoch);
        ViewChange c = changes.get(epoch - 1);
        if (c.epoch() != epoch) {
            fail("change " + epoch + " is of epoch " + c.epoch() + ": " + epochs());
        }
        return c;
    }

    /** The views delivered until one has exactly {@code members}, waiting up to {@code seconds}. */
    synchronized List<View> awaitMembers(List<String> members, long seconds) {
        await(() -> !changes.isEmpty() && changes.get(changes.size() - 1).view().members().equals(members), seconds,
                "a view of " + members);
        return changes.stream().map(ViewChange::view).toList();
    }

    synchronized KVStoreException awaitFailure(long seconds) {
        await(() -> failure != null, seconds, "a failure");
        return failure;
    }

    synchronized View view(int epoch) {
        return changes.get(epoch - 1).view();
    }

    synchronized long atNanos(int epoch) {
        return at.get(epoch - 1);
    }

    synchronized List<Integer> epochs() {
        return changes.stream().map(ViewChange::epoch).toList();
    }

    boolean offHazelcastThreads() {
        return threads.stream().noneMatch(t -> t.startsWith("hz."));
    }

    private void await(java.util.function.BooleanSupplier done, long seconds, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        if (!problems.isEmpty()) {
            fail(problems.toString());
        }
        try {
            while (!done.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    fail("no " + what + " within " + seconds + " s; got views " + epochs() + ", failure "
                            + (failure == null ? "none" : failure.getMessage()));
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted waiting for " + what);
        }
    }
}
