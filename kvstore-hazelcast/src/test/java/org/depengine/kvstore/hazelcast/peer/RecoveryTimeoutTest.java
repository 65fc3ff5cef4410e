package org.depengine.kvstore.hazelcast.peer;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.spi.Key;
import org.depengine.kvstore.spi.Rounds;
import org.depengine.kvstore.spi.StoreStats;
import org.junit.jupiter.api.Test;

/**
 * A view change that cannot finish (the new view's rank 0 never gets a survivor's report: that survivor is
 * gone too, and no later view has come yet) fails the ops waiting here once {@code recoveryTimeoutMs} has
 * passed, saying what the change waits for, instead of leaving them to their own timeout.
 */
class RecoveryTimeoutTest {
    @Test
    void aViewChangeNotInstalledWithinTheBoundFailsTheOpsWaitingNamingWhatItWaitsFor() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try (Engine engine = Engine.create("perdevice");
             PeerExchange x = new PeerExchange(0, 2, 1 << 20, 60_000, true, (key, sum) -> { }, timer, new StoreStats(),
                     in -> new Silent())) {
            x.recoveryTimeout(200);
            Key k = new Key(engine, "k", 2, 0);
            call(done -> x.init(k, done)).get(10, TimeUnit.SECONDS); // rank 0 gives the init
            x.changeView(1, new int[] {0, 1}); // this worker leads view 1; rank 1's report never comes
            CompletableFuture<Void> pull = call(done -> x.fetch(k, Rounds.of(0, 1), done));
            ExecutionException e = assertThrows(ExecutionException.class, () -> pull.get(10, TimeUnit.SECONDS));
            KVStoreException cause = assertInstanceOf(KVStoreException.class, e.getCause());
            assertTrue(cause.getMessage().contains("the move to view 1 did not finish within recoveryTimeoutMs=200 (it "
                    + "waits for the reports of its ranks [1])"), cause.getMessage());
        } finally {
            timer.shutdownNow();
        }
    }

    private static CompletableFuture<Void> call(java.util.function.Consumer<CallbackOnComplete> op) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        op.accept(new CallbackOnComplete() {
            @Override
            public void complete() {
                f.complete(null);
            }

            @Override
            public void fail(Throwable error) {
                f.completeExceptionally(error);
            }
        });
        return f;
    }

    /** A wire to a peer that never answers. */
    private static final class Silent implements Wire {
        @Override
        public void send(int peer, Frame f, ByteBuf payload, Runnable onWritten) {
            if (payload != null) {
                payload.release();
            }
            if (onWritten != null) {
                onWritten.run();
            }
        }

        @Override
        public void close() {
        }
    }
}
