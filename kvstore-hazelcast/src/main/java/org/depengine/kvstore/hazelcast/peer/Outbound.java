package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.depengine.kvstore.spi.Key;

/**
 * What a {@link PeerExchange} sends: frames to a rank of the view installed (on the wire, to that rank's
 * place, tagged with the view), a key's init or state, a push's parts, a skipped push's empty parts, a kept
 * sum forwarded. Called under the exchange's lock, which orders the frames to each peer.
 */
final class Outbound {
    private final PeerExchange x;

    Outbound(PeerExchange x) {
        this.x = x;
    }

    /** Sends {@code f} (tagged with the view installed) to rank {@code rank} of it. */
    void to(int rank, Frame f, ByteBuf payload, Runnable onWritten) {
        x.transport.send(x.mids[rank], f.at(x.epoch), payload, onWritten);
    }

    /** Sends {@code f}, with no payload, to every other rank of the view installed. */
    void toOthers(Frame f) {
        for (int r = 0; r < x.workers; r++) {
            if (r != x.rank) {
                to(r, f, null, null);
            }
        }
    }

    /**
     * This worker's copy of {@code pk} starts from its own value (rank 0's init, or in a view change where no
     * survivor had the init, the new rank 0's), sent with the key's state to every other worker.
     */
    void init(PeerKey pk) {
        Key k = pk.key;
        pk.applied.start(k.initRound(), k.initPeriod());
        if (x.workers > 1) {
            ByteBuf payload = valueAndState(k);
            Frame f = Frame.init(k.name(), k.length(), stateFloats(k), k.steps(), k.initRound());
            for (int r = 0; r < x.workers; r++) {
                if (r != x.rank) {
                    x.stats.sent(payload.readableBytes());
                    to(r, f, SharedView.toRead(payload, 0, payload.readableBytes()), null);
                }
            }
            payload.release();
        }
    }

    /** This worker's copy of {@code pk} as of {@code round} (its value, state and update count), for rank {@code to}, behind it. */
    void state(PeerKey pk, int to, long round) {
        Key k = pk.key;
        ByteBuf payload = valueAndState(k);
        x.stats.sent(payload.readableBytes());
        to(to, Frame.state(k.name(), k.length(), stateFloats(k), k.steps(), round), payload, null);
    }

    /** The sum of the last round this worker applied of {@code pk}, for rank {@code to}, one round behind. */
    void forward(PeerKey pk, int to) {
        PeerKey.RoundSum s = pk.kept;
        ByteBuf payload = s.hasData ? SharedView.toRead(s.buf, 0, pk.layout.length() * Float.BYTES) : null;
        x.stats.sent(payload == null ? 0 : payload.readableBytes());
        to(to, Frame.forward(pk.applied.applied(), pk.layout.key(), pk.layout.length(), s.hasData), payload, null);
    }

    private static int stateFloats(Key k) {
        return k.stateCopy().length / k.length();
    }

    /** The key's value then its state, in one buffer (only while nothing writes them: an op holding the key, or a frozen view). */
    private static ByteBuf valueAndState(Key k) {
        float[] state = k.stateCopy();
        ByteBuf payload = PeerTransport.alloc().directBuffer((k.length() + state.length) * Float.BYTES);
        payload.writeBytes(k.storedBytes());
        ByteBuffer st = ByteBuffer.allocate(state.length * Float.BYTES).order(ByteOrder.nativeOrder());
        st.asFloatBuffer().put(state);
        payload.writeBytes(st);
        return payload;
    }

    /**
     * This worker's push of {@code round} of {@code pk} to every reducer of every chunk: a copy of each part
     * this worker sums itself, the others straight from the pushed buffer (the key's merged one, which the
     * push's op holds; or {@code kept}, an elastic job's copy, which the key holds), a small key's copied.
     * {@code w}, the push's op, completes no sooner than they are written (null: an op done with already).
     */
    void parts(PeerKey pk, long round, PeerKey.Waiter op, ByteBuf kept) {
        Key k = pk.key;
        ByteBuffer merged = kept != null ? kept.nioBuffer(0, k.length() * Float.BYTES) : k.mergedBytes();
        // A push sent again has no op waiting (its op completed when it was first sent): count its writes anyway.
        PeerKey.Waiter w = op != null ? op : new PeerKey.Waiter(0, Integer.MIN_VALUE, null, "a push sent again");
        w.writes++; // held until every part is handed over, so the op cannot complete in between
        for (KeyLayout.Chunk c : pk.layout.chunks()) {
            for (int r = 0; r < x.workers; r++) {
                if (!c.reducedBy(r)) {
                    continue;
                }
                ByteBuffer bytes = merged.duplicate().position(c.offset() * Float.BYTES)
                        .limit((c.offset() + c.count()) * Float.BYTES).slice();
                if (r == x.rank) {
                    ByteBuf copy = pk.take(bytes.remaining());
                    copy.writeBytes(bytes);
                    x.reducer.offer(pk, c, x.rank, round, new PeerKey.Slot(
                            copy.nioBuffer().order(ByteOrder.nativeOrder()).asFloatBuffer(), copy), false);
                } else if (!x.saidBye[r]) {
                    x.stats.sent(bytes.remaining());
                    Frame f = Frame.push(x.rank, round, k.name(), k.length(), c.offset(), c.count());
                    if (kept != null) {
                        to(r, f, SharedView.toRead(kept, c.offset() * Float.BYTES, c.count() * Float.BYTES), null);
                    } else if (k.length() <= PeerExchange.COPIED_FLOATS) {
                        // A small key's part is copied, and the op completes at once: waiting for the socket
                        // (an event loop's turn) cost a small round more than its bytes.
                        to(r, f, PeerTransport.alloc().directBuffer(bytes.remaining()).writeBytes(bytes), null);
                    } else {
                        w.writes++; // the pushed buffer stays the op's until written: no copy of a large key
                        to(r, f, Unpooled.wrappedBuffer(bytes), () -> x.written(pk, w));
                    }
                }
            }
        }
        w.writes--;
    }

    /** This worker's push of {@code round} of {@code pk} was skipped: every reducer gets an empty part. */
    void skip(PeerKey pk, long round) {
        String key = pk.layout.key();
        for (KeyLayout.Chunk c : pk.layout.chunks()) {
            for (int r = 0; r < x.workers; r++) {
                if (c.reducedBy(r)) {
                    if (r == x.rank) {
                        x.reducer.offer(pk, c, x.rank, round, null, true);
                    } else {
                        to(r, Frame.push(x.rank, round, key, pk.layout.length(), c.offset(), -1), null, null);
                    }
                }
            }
        }
    }
}
