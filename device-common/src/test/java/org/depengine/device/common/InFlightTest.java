package org.depengine.device.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class InFlightTest {
    @Test
    void awaitNoneReturnsWhenTheLastCallbackEndsAndGivesUpAtTheTimeout() throws Exception {
        InFlight f = new InFlight();
        assertTrue(f.awaitNone(Duration.ZERO), "nothing in flight");
        f.begin();
        f.begin();
        assertFalse(f.awaitNone(Duration.ofMillis(20)), "two in flight");
        CountDownLatch waiting = new CountDownLatch(1);
        boolean[] result = new boolean[1];
        Thread closer = new Thread(() -> {
            waiting.countDown();
            result[0] = f.awaitNone(Duration.ofMinutes(1));
        });
        closer.start();
        waiting.await();
        f.end();
        assertEquals(1, f.count());
        f.end();
        closer.join();
        assertTrue(result[0], "released by the last end()");
        assertThrows(IllegalStateException.class, f::end, "more ends than begins");
    }
}
