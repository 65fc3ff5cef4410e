package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import java.nio.ByteOrder;
import org.depengine.kvstore.spi.Key;

/**
 * How a {@link PeerExchange} moves one key's copy on: in the op that waits on the key (which holds its stored
 * value), it applies the rounds whose sums are whole, in order (the updater outside the exchange's lock, one
 * thread at a time per key), or takes a view change's state for it, then completes the op once it has what it
 * waits for. During a view change nothing is applied ({@link Recovery}).
 */
final class Advance {
    private final PeerExchange x;
    private final PeerExchange.Applier applier;

    Advance(PeerExchange x, PeerExchange.Applier applier) {
        this.x = x;
        this.applier = applier;
    }

    /** Applies what {@code pk}'s waiting op may apply, then completes it if it has what it waits for. */
    void run(PeerKey pk) {
        while (true) {
            PeerKey.Waiter complete = null;
            PeerKey.RoundSum sum = null;
            ByteBuf state = null;
            Frame stateFrame = null;
            long round = -1;
            synchronized (x) {
                if (pk.applying || pk.key == null || pk.waiter == null || x.change.stopsApplies()) {
                    return; // a view change in progress: nothing applies until its view is installed and told
                }
                if (pk.state != null) {
                    state = pk.state;
                    stateFrame = pk.stateFrame;
                    pk.state = null;
                    pk.applying = true;
                } else {
                    round = pk.recovering ? -1 : pk.applied.next(x.closedThrough());
                    if (round < 0) {
                        if (pk.recovering || !x.satisfied(pk)) {
                            return;
                        }
                        complete = pk.waiter;
                        pk.waiter = null;
                    } else {
                        sum = pk.sums.remove(round);
                        pk.applying = true;
                    }
                }
            }
            if (complete != null) {
                complete.done.complete();
                return;
            }
            RuntimeException failed = null;
            try {
                if (state != null) {
                    takeState(pk.key, state, stateFrame);
                } else if (sum.hasData) {
                    applier.apply(pk.key, sum.floats(0, pk.layout.length()));
                }
            } catch (RuntimeException e) {
                failed = e;
            }
            PeerKey.Waiter w;
            boolean installed;
            synchronized (x) {
                if (state != null) {
                    pk.applied.recoveredTo(stateFrame.round());
                    keep(pk, null);
                    pk.recovering = false;
                } else {
                    if (x.elastic) {
                        keep(pk, sum); // for a survivor one round behind, should this view change
                    } else {
                        pk.give(sum.buf);
                    }
                    pk.applied.applied(round);
                    pk.skips.headSet(round, true).clear();
                    pk.closeOpen(round);
                }
                pk.applying = false;
                Long pushed = state != null ? null : pk.pushedAt.remove(round);
                if (pushed != null) {
                    x.stats.roundLatency(System.nanoTime() - pushed);
                }
                w = failed == null ? null : pk.waiter;
                if (w != null) {
                    pk.waiter = null;
                    pk.broken = failed.getMessage();
                }
                installed = x.change.applyEnded(); // a view change waits for the applies running to report
            }
            if (state == null) {
                x.stats.roundCompleted();
            }
            if (installed) {
                x.advanceAll();
            }
            if (w != null) {
                w.done.fail(failed);
                return;
            }
        }
    }

    /** Keeps {@code sum} as the key's last applied round's (the one kept before goes back to the pool). */
    private static void keep(PeerKey pk, PeerKey.RoundSum sum) {
        if (pk.kept != null) {
            pk.give(pk.kept.buf);
        }
        pk.kept = sum;
    }

    /** Makes {@code k}'s copy a survivor's as of a view change's agreed round (in the op holding its stored value). */
    private static void takeState(Key k, ByteBuf b, Frame f) {
        try {
            k.storedBytes().put(b.nioBuffer(0, k.length() * Float.BYTES));
            float[] st = new float[f.offset() * k.length()];
            b.nioBuffer(k.length() * Float.BYTES, st.length * Float.BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer().get(st);
            k.restoreFrom(st, f.count(), k.initRound());
        } finally {
            b.release();
        }
    }
}
