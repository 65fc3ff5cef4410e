package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import java.nio.ByteOrder;

/**
 * The frames that reach a {@link PeerExchange} from its transport: where each payload goes (a rank's part
 * into a buffer of the key's, a sum straight into its round's sum here) and what each frame changes, under
 * the exchange's lock; the rounds it makes applicable are applied after, outside it. {@code from} is the
 * sender's place on the wire ({@link PeerExchange#mids}); a frame of a view this worker has left, or of the
 * view it is leaving, is dropped, and one of a view it has not installed yet waits for it ({@link Recovery}).
 */
final class InboundFrames implements PeerTransport.Inbound {
    /** What {@link #take} returns when every key may have rounds to apply. */
    private static final String ALL = "";

    private final PeerExchange x;

    InboundFrames(PeerExchange x) {
        this.x = x;
    }

    /** Whether frames of view {@code epoch} are not taken now (a view left, or the view being left). */
    private boolean stale(int epoch) {
        return epoch < x.epoch || epoch == x.epoch && x.change.frozen();
    }

    @Override
    public ByteBuf target(int from, Frame f) {
        x.stats.received(f.payloadBytes());
        synchronized (x) {
            boolean recovery = f.type() == Frame.Type.REPORT || f.type() == Frame.Type.DECISION;
            if (!recovery && stale(f.epoch())) {
                return null; // skipped as it comes
            }
            if (recovery || f.epoch() > x.epoch) {
                return PeerTransport.alloc().heapBuffer(f.payloadBytes(), f.payloadBytes());
            }
            return switch (f.type()) {
                case PUSH -> x.keyOf(f.key(), f.length()).take(f.payloadBytes());
                case INIT, STATE -> PeerTransport.alloc().directBuffer(f.payloadBytes(), f.payloadBytes());
                case SUM, FORWARD -> {
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
        String advanceKey;
        synchronized (x) {
            advanceKey = take(from, f, payload);
        }
        if (advanceKey == ALL) {
            x.advanceAll();
        } else if (advanceKey != null) {
            x.advance(advanceKey);
        }
    }

    /**
     * A frame held for the view just installed ({@link Recovery}): its payload goes where a frame of the view
     * installed goes, then it is taken. Under the lock; the view's install advances every key after.
     */
    String replay(int from, Frame f, ByteBuf held) {
        ByteBuf target = f.payloadBytes() == 0 ? null : target(from, f);
        if (target != null && held != null) {
            target.writeBytes(held);
        }
        PeerExchange.release(held);
        return take(from, f, target);
    }

    /** Takes {@code f} in (under the lock): the key whose rounds may now apply, {@link #ALL}, or null. */
    private String take(int from, Frame f, ByteBuf payload) {
        switch (f.type()) {
            case REPORT -> {
                x.change.takeReport(from, f.epoch(), payload); // the last report installs the leader's view
                return ALL;
            }
            case DECISION -> {
                x.change.takeDecision(f.epoch(), payload);
                return ALL;
            }
            default -> {
            }
        }
        if (stale(f.epoch())) {
            PeerExchange.release(payload);
            return null;
        }
        if (f.epoch() > x.epoch) {
            x.change.hold(from, f, payload);
            return null;
        }
        if (payload != null && !payload.isDirect()) {
            // Its header came before this worker installed the frame's view: its payload was read into a buffer to
            // hold, not where a frame of the view installed goes (a sum's round, a pooled part). Taken as a held one.
            return replay(from, f, payload);
        }
        int r = x.rankOf(from);
        if (r < 0) {
            PeerExchange.release(payload); // a worker no longer in the view: what it sent is of a view left
            return null;
        }
        switch (f.type()) {
            case PUSH -> {
                PeerKey pk = x.keyOf(f.key(), f.length());
                KeyLayout.Chunk c = pk.layout.at(f.offset());
                if (c == null || !c.reducedBy(x.rank)) {
                    pk.broken = "rank " + r + " sent a part of key '" + f.key() + "' at float " + f.offset()
                            + " that this rank does not sum: the workers disagree on splitFloats or numWorkers";
                    PeerExchange.release(payload);
                    return null;
                }
                x.reducer.offer(pk, c, r, f.round(), f.count() < 0 ? null
                        : new PeerKey.Slot(payload.nioBuffer().order(ByteOrder.nativeOrder()).asFloatBuffer(), payload),
                        f.count() < 0);
                return f.key();
            }
            case SUM -> {
                PeerExchange.release(payload);
                PeerKey pk = x.keyOf(f.key(), f.length());
                if (!pk.applied.started() || f.round() > pk.applied.applied()) {
                    PeerKey.RoundSum s = pk.sum(f.round());
                    s.hasData |= f.count() >= 0;
                    pk.arrived(f.round());
                    return f.key();
                }
                return null;
            }
            case FORWARD -> {
                PeerExchange.release(payload);
                PeerKey pk = x.keyOf(f.key(), f.length());
                if (!pk.recovering || f.round() <= pk.applied.applied()) {
                    PeerKey.RoundSum s = pk.sums.remove(f.round());
                    if (s != null) {
                        s.buf.release();
                    }
                    return null;
                }
                pk.sum(f.round()).hasData = f.count() >= 0;
                pk.applied.forwarded(f.round());
                pk.recovering = false;
                return f.key();
            }
            case INIT, STATE -> {
                PeerKey pk = x.keyOf(f.key(), f.length());
                if (f.type() == Frame.Type.STATE && pk.applied.started()) {
                    PeerExchange.release(pk.state); // taken by the op that holds the key (advance)
                    pk.state = payload;
                    pk.stateFrame = f;
                } else {
                    PeerExchange.release(pk.init);
                    pk.init = payload;
                    pk.initFrame = f;
                    pk.takeInit();
                }
                return f.key();
            }
            case END -> {
                x.reducer.ended(r, f.period());
                return ALL;
            }
            case CLOSED -> {
                x.closedBy[r] = Math.max(x.closedBy[r], f.period());
                x.notifyAll(); // an elastic barrier waits for it (awaitClosed)
                return ALL;
            }
            case BYE -> {
                x.saidBye[r] = true;
                x.closedBy[r] = Integer.MAX_VALUE;
                x.notifyAll();
                x.reducer.ended(r, Integer.MAX_VALUE);
                for (PeerKey pk : x.keys.values()) {
                    for (KeyLayout.Chunk c : pk.layout.chunks()) {
                        if (c.reducer() == r && pk.broken == null) {
                            pk.broken = "rank " + r + " closed its store normally, and with updateOn=worker it summed "
                                    + "part of key '" + pk.layout.key() + "': no later round of the key can complete "
                                    + "(close every worker at the end of the job, or use updateOn=server)";
                        }
                    }
                }
                return ALL;
            }
            default -> {
                PeerExchange.release(payload);
                return null;
            }
        }
    }

    @Override
    public void disconnected(int from, boolean bye, String why) {
        if (bye) {
            return;
        }
        if (x.elastic) {
            // Only a suspicion in an elastic job: the membership decides who is gone, and a view without it follows.
            return;
        }
        x.lost(from, why + " without a goodbye");
    }
}
