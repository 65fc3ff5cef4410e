package org.depengine.device.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link HandleEvent}'s handle bookkeeping, and {@link BoundedPool}. */
class HandleEventTest {
    /** A fake native handle: a flag the "device" sets when the marked work finishes. */
    private static final class Handle {
        final AtomicBoolean finished = new AtomicBoolean();
        RuntimeException failure;
    }

    private static final class FakeEvent extends HandleEvent<Handle> {
        final List<Handle> recycled = new ArrayList<>();
        int queries;

        FakeEvent(Handle h) {
            super("fake:0", h);
        }

        @Override
        protected boolean query(Handle h) {
            queries++;
            if (h.failure != null) {
                throw h.failure;
            }
            return h.finished.get();
        }

        @Override
        protected void hostWait(Handle h) {
            h.finished.set(true);
        }

        @Override
        protected void recycle(Handle h) {
            recycled.add(h);
        }
    }

    @Test
    void theHandleIsRecycledOnceWhenSeenDoneAndNeverTouchedAgain() {
        Handle h = new Handle();
        FakeEvent e = new FakeEvent(h);
        assertFalse(e.isDone());
        assertTrue(e.recycled.isEmpty());
        h.finished.set(true);
        assertTrue(e.isDone());
        assertEquals(List.of(h), e.recycled);
        int queries = e.queries;
        assertTrue(e.isDone());
        e.await();
        List<Handle> used = new ArrayList<>();
        e.withHandle(used::add);
        assertTrue(used.isEmpty(), "a done event has nothing to wait for");
        e.markDone();
        assertEquals(queries, e.queries, "later calls do not ask the device");
        assertEquals(1, e.recycled.size(), "recycled exactly once");
    }

    @Test
    void aHandleInUseIsRecycledByItsLastUserNotUnderIt() {
        Handle h = new Handle();
        FakeEvent e = new FakeEvent(h);
        e.withHandle(pinned -> {
            assertSame(h, pinned);
            e.markDone(); // e.g. the stream synchronised meanwhile
            assertTrue(e.recycled.isEmpty(), "not recycled while pinned");
        });
        assertEquals(List.of(h), e.recycled);
        assertTrue(e.isDone());
    }

    @Test
    void aFailureCountsAsDoneAndIsThrownByAwait() {
        Handle h = new Handle();
        h.failure = new IllegalStateException("device error 7");
        FakeEvent e = new FakeEvent(h);
        assertTrue(e.isDone());
        IllegalStateException thrown = assertThrows(IllegalStateException.class, e::await);
        assertSame(h.failure, thrown);
        assertEquals(List.of(h), e.recycled);
        assertTrue(e.toString().contains("fake:0") && e.toString().contains("done"), e.toString());
    }

    @Test
    void aBoundedPoolReusesAndKeepsAtMostItsLimit() {
        List<Object> discarded = new ArrayList<>();
        BoundedPool<Object> pool = new BoundedPool<>(2, Object::new, discarded::add);
        Object a = pool.acquire();
        pool.release(a);
        assertSame(a, pool.acquire(), "an idle object is reused");
        Object b = pool.acquire();
        Object c = pool.acquire();
        pool.release(a);
        pool.release(b);
        pool.release(c);
        assertEquals(List.of(c), discarded, "past the limit, released objects are discarded");
        assertEquals(2, pool.idle());
        assertEquals(3, pool.created());
        assertEquals(2, pool.live());
        pool.clear();
        assertEquals(0, pool.idle());
        assertEquals(0, pool.live());
        assertThrows(IllegalArgumentException.class, () -> new BoundedPool<>(-1, Object::new, x -> { }));
    }
}
