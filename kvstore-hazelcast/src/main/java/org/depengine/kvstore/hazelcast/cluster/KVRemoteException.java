package org.depengine.kvstore.hazelcast.cluster;

/**
 * A distributed push, pull, init or barrier failed: its message names the key, the round, this
 * worker's rank and the cause (a lost worker, a timeout, a shape mismatch, a closed store).
 */
public final class KVRemoteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An error with {@code message} and the underlying {@code cause} (may be null). */
    public KVRemoteException(String message, Throwable cause) {
        super(message, cause);
    }
}
