package org.depengine.kvstore.hazelcast.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The calls' timeouts, one periodic task for all of them. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CallDeadlinesTest {
    @Test
    void aCallPastItsDeadlineExpiresAndACompletedOneNever() throws Exception {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
        try {
            CallDeadlines deadlines = new CallDeadlines(timer);
            List<String> expired = new CopyOnWriteArrayList<>();
            CompletableFuture<String> answered = new CompletableFuture<>();
            deadlines.add(answered, 0, () -> expired.add("answered"));
            answered.complete("value");
            CompletableFuture<String> silent = new CompletableFuture<>();
            deadlines.add(silent, 0, () -> {
                expired.add("silent");
                silent.completeExceptionally(new TimeoutException("no answer"));
            });
            CompletableFuture<String> later = new CompletableFuture<>();
            deadlines.add(later, 60_000, () -> expired.add("later"));
            ExecutionException e = assertThrows(ExecutionException.class, () -> silent.get(10, TimeUnit.SECONDS));
            assertEquals("no answer", e.getCause().getMessage());
            timer.submit(() -> { }).get(); // the single timer thread has finished the sweep that expired it
            assertEquals(List.of("silent"), expired, "only the call past its deadline and unanswered expires");
        } finally {
            timer.shutdownNow();
        }
    }
}
