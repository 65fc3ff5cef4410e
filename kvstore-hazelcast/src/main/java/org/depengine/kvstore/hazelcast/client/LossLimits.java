package org.depengine.kvstore.hazelcast.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.depengine.kvstore.hazelcast.hz.RankOp;
import org.depengine.kvstore.hazelcast.hz.Reply;
import org.depengine.kvstore.hazelcast.membership.JobMembership;
import org.depengine.kvstore.spi.Rounds;

/**
 * A job that is not elastic: its lost ranks, told to every chunk's owner ({@link RankOp#lost}), and each
 * owner's answer (the last round that can still complete, and why no later one can), so that a call of a
 * round a loss rules out fails at once, naming the lost rank, without calling the owner. Thread-safe.
 */
final class LossLimits {
    private final JobMembership job;
    private final Calls calls;
    private final ChunkedKeys chunks;
    private final int workers;
    private final boolean async;
    /**
     * {@code dist_sync}, once a rank is lost: per chunk, its owner's answer to the loss. A call of a later
     * round fails at once.
     */
    private final Map<String, CompletableFuture<Reply>> limits = new ConcurrentHashMap<>();

    LossLimits(JobMembership job, Calls calls, ChunkedKeys chunks, int workers, boolean async) {
        this.job = job;
        this.calls = calls;
        this.chunks = chunks;
        this.workers = workers;
        this.async = async;
    }

    /**
     * Tells every key's owner (the barrier's included) that rank {@code lost} left without closing its
     * store, and keeps each owner's answer.
     */
    CompletableFuture<Void> report(int lost, String why) {
        List<CompletableFuture<?>> parts = new ArrayList<>();
        if (lost >= workers) {
            return CompletableFuture.completedFuture(null); // a joiner of an elastic job: no slot in these rounds
        }
        for (String k : chunks.allChunks()) {
            CompletableFuture<Reply> answer = calls.call(k, RankOp.lost(workers, async, lost, why), null,
                    "report of lost rank " + lost);
            limits.put(k, answer);
            parts.add(answer);
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
    }

    /**
     * Once a rank is known lost: runs {@code call}, which needs round {@code round} of {@code chunkKey} to
     * complete (0: only the key's init), unless that round can no longer complete; then fails it at once,
     * naming the lost rank and why. The chunk's owner is asked once (a loss report of each lost rank; its
     * answer is kept) for the chunks not reported to when the loss was seen, so a key created after the loss
     * knows it too: membership, not the key's state, says who is gone. {@code dist_async} rounds need no
     * rank: only their reads are checked (a read needs the init).
     *
     * @param asyncKey whether the key's rounds are {@code dist_async} (a barrier's never are)
     */
    <T> CompletableFuture<T> unlessLost(String chunkKey, long round, String key, boolean asyncKey, String what,
                                        Supplier<CompletableFuture<T>> call) {
        Map<Integer, String> lost = new java.util.TreeMap<>(job.lostRanks());
        lost.keySet().removeIf(r -> r >= workers); // joiners of an elastic job have no slot in these rounds
        if (lost.isEmpty() || asyncKey && round > 0) {
            return call.get();
        }
        CompletableFuture<Reply> limit = limits.computeIfAbsent(chunkKey, k -> {
            List<CompletableFuture<Reply>> answers = new ArrayList<>();
            lost.forEach((r, why) -> answers.add(calls.call(k, RankOp.lost(workers, asyncKey, r, why), null,
                    "report of lost rank " + r)));
            return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                    .thenApply(v -> answers.get(answers.size() - 1).join());
        });
        return limit.handle((answer, err) -> {
            if (err != null) {
                limits.remove(chunkKey, limit); // asked again by the next call; this one asks the owner itself
                return null;
            }
            return answer;
        }).thenCompose(answer -> {
            if (answer != null && answer.message() != null && round > answer.round()) {
                String cannot = Calls.BARRIER.equals(key) ? "; the barrier cannot complete without every worker"
                        : answer.round() < 0 ? "; the key's init (rank 0's) never landed, so no round of it can complete"
                        : "; no round of this key after " + Rounds.text(answer.round()) + " can complete";
                return CompletableFuture.failedFuture(calls.failure(key, what, answer.message() + cannot
                        + " (failed without calling the key's owner)", null));
            }
            return call.get();
        });
    }
}
