package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;

/**
 * A range of a buffer that several channels use at once (a round's sum sent to every peer, or read into from
 * several), as a buffer with its own NIO view of that memory: a pooled buffer's slices and duplicates share
 * one NIO view, whose position a channel sets for each socket read or write, so two event loops on slices of
 * one buffer corrupt each other's. A view holds the buffer it shows until it is released.
 */
final class SharedView extends UnpooledDirectByteBuf {
    private final ByteBuf shown;

    private SharedView(ByteBuf shown, int offset, int bytes) {
        super(PeerTransport.alloc(), shown.nioBuffer(offset, bytes), bytes);
        this.shown = shown.retain();
    }

    /** The range as bytes to send: readable, its own view. */
    static ByteBuf toRead(ByteBuf shown, int offset, int bytes) {
        return new SharedView(shown, offset, bytes);
    }

    /** The range as a target to read into: empty and writable up to {@code bytes}, its own view. */
    static ByteBuf toWrite(ByteBuf shown, int offset, int bytes) {
        return new SharedView(shown, offset, bytes).clear();
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        shown.release();
    }
}
