package org.depengine.kvstore;

import org.depengine.api.EngineException;

/**
 * A failure of a store's own work on a key: a remote call that failed or timed out, a lost worker, an
 * updater that threw. Raised inside the store's ops, it fails them, so it reaches the caller as the
 * cause of the {@link EngineException} that {@code waitForVar} on a pulled array throws; raised at a
 * call ({@link KVStore#barrier()}, {@link KVStore#open}), it is thrown directly. Its message names the
 * key (where there is one), the rank and the cause.
 */
public class KVStoreException extends EngineException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final int rank;

    /**
     * @param key the key concerned, or null for a store-wide failure
     * @param rank the rank of the worker reporting it; negative for a worker that has none yet (one joining
     *     a running job)
     * @param detail what went wrong (e.g. {@code "round 12: rank 1 was lost"})
     * @param cause the underlying failure, or null
     */
    public KVStoreException(String key, int rank, String detail, Throwable cause) {
        super(message(key, rank, detail, cause), cause);
        this.key = key;
        this.rank = rank;
    }

    private static String message(String key, int rank, String detail, Throwable cause) {
        StringBuilder sb = new StringBuilder("kvstore");
        if (key != null) {
            sb.append(" key '").append(key).append('\'');
        }
        sb.append(rank < 0 ? " on a joining worker" : " on rank " + rank).append(": ").append(detail);
        if (cause != null) {
            sb.append(": ").append(cause);
        }
        return sb.toString();
    }

    /** The key concerned, or null for a store-wide failure. */
    public String key() {
        return key;
    }

    /** The rank of the worker that reported the failure. */
    public int rank() {
        return rank;
    }
}
