package org.depengine.kvstore.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.MembershipListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link AbstractKVStore#onMembershipChange} and {@link AbstractKVStore#membershipChanged}, on a store of no key. */
class MembershipDeliveryTest {
    /** An engine that a store of no key asks only whether it captures and whether it is closed. */
    private static final Engine ENGINE = (Engine) Proxy.newProxyInstance(Engine.class.getClassLoader(),
            new Class<?>[] {Engine.class}, (proxy, method, args) -> switch (method.getName()) {
                case "isCapturing", "isClosed" -> false;
                case "name" -> "stand-in";
                default -> throw new UnsupportedOperationException(method.getName() + " is not used by these tests");
            });

    private final ViewStore store = new ViewStore();
    /** What the listeners saw, in call order. */
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void close() {
        store.close();
    }

    /** Rank 0 of 3 after the loss of the last rank of epoch {@code epoch - 1}: the store has moved to it. */
    private MembershipChange loss(int epoch) {
        int workers = 4 - epoch;
        store.moveTo(0, workers);
        return new MembershipChange(epoch, 0, 0, workers, List.of(new MembershipChange.Departure(workers, "m" + workers,
                "killed", Instant.EPOCH)), List.of(), Map.of("w", Rounds.of(0, 1)));
    }

    private MembershipListener recording(String name) {
        return c -> calls.add(name + "@" + c.epoch() + " on " + Thread.currentThread().getName() + " sees rank "
                + store.rank() + " of " + store.numWorkers());
    }

    @Test
    void listenersAreCalledInRegistrationOrderOnTheDeliveringThreadWithTheNewViewInPlace() {
        MembershipListener a = recording("a");
        store.onMembershipChange(a);
        store.onMembershipChange(recording("b"));
        store.onMembershipChange(a); // twice: called twice
        String me = Thread.currentThread().getName();
        store.membershipChanged(loss(1));
        store.membershipChanged(loss(2));
        assertEquals(List.of("a@1 on " + me + " sees rank 0 of 3", "b@1 on " + me + " sees rank 0 of 3",
                "a@1 on " + me + " sees rank 0 of 3", "a@2 on " + me + " sees rank 0 of 2",
                "b@2 on " + me + " sees rank 0 of 2", "a@2 on " + me + " sees rank 0 of 2"), calls);
    }

    @Test
    void aThrowingListenerNeitherStopsTheNextNorBreaksTheStore() {
        store.onMembershipChange(c -> {
            throw new IllegalStateException("a listener's bug, for the test");
        });
        store.onMembershipChange(c -> {
            throw new AssertionError("an error, for the test");
        });
        store.onMembershipChange(recording("after"));
        store.membershipChanged(loss(1));
        store.membershipChanged(loss(2));
        assertEquals(2, calls.size(), "the last listener saw both changes: " + calls);
        assertTrue(calls.get(1).startsWith("after@2"), calls.toString());
        assertEquals(List.of(), List.copyOf(store.keys()), "the store still answers");
    }

    @Test
    void removeStopsTheCallsAndIsIdempotent() {
        KVStore.Registration a = store.onMembershipChange(recording("a"));
        store.onMembershipChange(recording("b"));
        KVStore.Registration again = store.onMembershipChange(recording("a2"));
        a.remove();
        a.remove();
        store.membershipChanged(loss(1));
        assertEquals(2, calls.size(), calls.toString());
        assertTrue(calls.get(0).startsWith("b@1") && calls.get(1).startsWith("a2@1"), calls.toString());
        again.remove();
        store.membershipChanged(loss(2));
        assertEquals(3, calls.size(), calls.toString());
        assertTrue(calls.get(2).startsWith("b@2"), calls.toString());
    }

    @Test
    void aListenerMayRemoveItselfInItsCall() {
        KVStore.Registration[] self = new KVStore.Registration[1];
        self[0] = store.onMembershipChange(c -> {
            calls.add("once@" + c.epoch());
            self[0].remove();
        });
        store.membershipChanged(loss(1));
        store.membershipChanged(loss(2));
        assertEquals(List.of("once@1"), calls);
    }

    @Test
    void nullIsRefusedNamingTheArgument() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> store.onMembershipChange(null));
        assertEquals("listener", e.getMessage());
        assertThrows(NullPointerException.class, () -> store.membershipChanged(null));
    }

    @Test
    void aClosedStoreRefusesARegistrationAsItsOtherCallsAndCallsNoListener() {
        KVStore.Registration r = store.onMembershipChange(recording("a"));
        store.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.onMembershipChange(recording("b")));
        assertEquals("onMembershipChange on a closed test store (rank 0)", e.getMessage());
        store.membershipChanged(loss(1));
        assertEquals(List.of(), calls, "closing the store removed every registration");
        r.remove(); // allowed after close
    }

    @Test
    void changesOutOfEpochOrderAreRefusedAndReachNoListener() {
        store.onMembershipChange(recording("a"));
        store.membershipChanged(loss(1));
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> store.membershipChanged(loss(1)));
        assertTrue(twice.getMessage().contains("change to view 1 after view 1"), twice.getMessage());
        store.membershipChanged(loss(3)); // view 2 was replaced before this worker moved to it: not delivered alone
        IllegalStateException older = assertThrows(IllegalStateException.class, () -> store.membershipChanged(loss(2)));
        assertTrue(older.getMessage().contains("change to view 2 after view 3"), older.getMessage());
        assertEquals(2, calls.size(), calls.toString());
    }

    @Test
    void aChangeTheStoreHasNotMovedToIsRefused() {
        store.onMembershipChange(recording("a"));
        MembershipChange c = loss(1); // rank 0 of 3
        store.moveTo(0, 4);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.membershipChanged(c));
        assertTrue(e.getMessage().contains("(rank 0 of 3) while it answers rank 0 of 4"), e.getMessage());
        assertEquals(List.of(), calls);
    }

    /** The smallest real store: no key is ever created, so its hooks are never reached; its view is set by the test. */
    private static final class ViewStore extends AbstractKVStore {
        private volatile int rank;
        private volatile int numWorkers = 4;

        ViewStore() {
            super(ENGINE, "test", KVStoreSettings.defaults());
        }

        void moveTo(int newRank, int workers) {
            rank = newRank;
            numWorkers = workers;
        }

        @Override
        public int rank() {
            return rank;
        }

        @Override
        public int numWorkers() {
            return numWorkers;
        }

        @Override
        protected void sendInit(Key key, CallbackOnComplete done) {
            throw new UnsupportedOperationException("no key in these tests");
        }

        @Override
        protected void send(Key key, long round, CallbackOnComplete done) {
            throw new UnsupportedOperationException("no key in these tests");
        }

        @Override
        protected void fetch(Key key, long round, CallbackOnComplete done) {
            throw new UnsupportedOperationException("no key in these tests");
        }

        @Override
        protected void doBarrier() {
        }

        @Override
        protected void closeStore() {
        }
    }
}
