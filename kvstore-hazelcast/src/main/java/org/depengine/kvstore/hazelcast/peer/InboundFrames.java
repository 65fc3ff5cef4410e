package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import java.nio.ByteOrder;

/**
 * The frames that reach a {@link PeerExchange} from its transport: where each payload goes (a rank's part
 * into a buffer of the key's, a sum straight into its round's sum here) and what each frame changes, under
 * the exchange's lock; the rounds it makes applicable are applied after, outside it.
 */
final class InboundFrames implements PeerTransport.Inbound {
    private final PeerExchange x;

    InboundFrames(PeerExchange x) {
        this.x = x;
    }

    @Override
    public ByteBuf target(int from, Frame f) {
        x.stats.received(f.payloadBytes());
        synchronized (x) {
            return switch (f.type()) {
                case PUSH -> x.keyOf(f.key(), f.length()).take(f.payloadBytes());
                case INIT -> PeerTransport.alloc().directBuffer(f.payloadBytes(), f.payloadBytes());
                case SUM -> {
                    PeerKey pk = x.keyOf(f.key(), f.length());
                    if (pk.applied.started() && f.round() <= pk.applied.applied()) {
                        yield null; // applied already: a sum made again
                    }
                    yield SharedView.toWrite(pk.sum(f.round()).buf, f.offset() * Float.BYTES, f.payloadBytes());
                }
                default -> null;
            };
        }
    }

    @Override
    public void received(int from, Frame f, ByteBuf payload) {
        String advanceKey = null;
        synchronized (x) {
            switch (f.type()) {
                case PUSH -> {
                    PeerKey pk = x.keyOf(f.key(), f.length());
                    KeyLayout.Chunk c = pk.layout.at(f.offset());
                    if (c == null || !c.reducedBy(x.rank())) {
                        pk.broken = "rank " + from + " sent a part of key '" + f.key() + "' at float " + f.offset()
                                + " that this rank does not sum: the workers disagree on splitFloats or numWorkers";
                        PeerExchange.release(payload);
                    } else {
                        x.reducer.offer(pk, c, from, f.round(), f.count() < 0 ? null
                                : new PeerKey.Slot(payload.nioBuffer().order(ByteOrder.nativeOrder()).asFloatBuffer(), payload),
                                f.count() < 0);
                        advanceKey = f.key();
                    }
                }
                case SUM -> {
                    PeerExchange.release(payload);
                    PeerKey pk = x.keyOf(f.key(), f.length());
                    if (!pk.applied.started() || f.round() > pk.applied.applied()) {
                        PeerKey.RoundSum s = pk.sum(f.round());
                        s.hasData |= f.count() >= 0;
                        x.arrived(pk, f.round());
                        advanceKey = f.key();
                    }
                }
                case INIT -> {
                    PeerKey pk = x.keyOf(f.key(), f.length());
                    pk.init = payload;
                    pk.initFrame = f;
                    pk.takeInit();
                    advanceKey = f.key();
                }
                case END -> x.reducer.ended(from, f.period());
                case CLOSED -> x.closedBy[from] = Math.max(x.closedBy[from], f.period());
                case BYE -> {
                    x.saidBye[from] = true;
                    x.closedBy[from] = Integer.MAX_VALUE;
                    x.reducer.ended(from, Integer.MAX_VALUE);
                    for (PeerKey pk : x.keys.values()) {
                        for (KeyLayout.Chunk c : pk.layout.chunks()) {
                            if (c.reducer() == from && pk.broken == null) {
                                pk.broken = "rank " + from + " closed its store normally, and with updateOn=worker it summed "
                                        + "part of key '" + pk.layout.key() + "': no later round of the key can complete "
                                        + "(close every worker at the end of the job, or use updateOn=server)";
                            }
                        }
                    }
                }
                default -> PeerExchange.release(payload);
            }
        }
        if (advanceKey != null) {
            x.advance(advanceKey);
        } else if (f.type() == Frame.Type.END || f.type() == Frame.Type.CLOSED || f.type() == Frame.Type.BYE) {
            x.advanceAll();
        }
    }

    @Override
    public void disconnected(int from, boolean bye, String why) {
        if (!bye) {
            x.lost(from, why + " without a goodbye");
        }
    }
}
