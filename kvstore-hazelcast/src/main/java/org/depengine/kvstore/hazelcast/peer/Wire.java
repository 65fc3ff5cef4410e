package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;

/**
 * What {@link PeerExchange} sends frames through: {@link PeerTransport} between processes, or an in-memory
 * stand-in in the protocol's model check. Frames to one peer arrive in the order they were sent.
 */
interface Wire extends AutoCloseable {
    /**
     * Sends {@code f} to rank {@code peer} with {@code payload} (released once written; null for none), and
     * runs {@code onWritten} (if not null) once the payload has been written out or never will be.
     */
    void send(int peer, Frame f, ByteBuf payload, Runnable onWritten);

    /** Sends {@code f} with {@code payload}, nothing to run after. */
    default void send(int peer, Frame f, ByteBuf payload) {
        send(peer, f, payload, null);
    }

    /** Closes the wire; idempotent. */
    @Override
    void close();
}
