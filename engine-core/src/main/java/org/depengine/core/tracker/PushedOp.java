package org.depengine.core.tracker;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;

/**
 * The first part of an op ({@link OpBlock}): what its push fixes before it is registered. Its
 * definition, context, priority, id and listener, the pending-op count it entered, its device, the
 * engine's route, and, for an op of a graph's replay, its {@linkplain ReplaySlot replay slot}. It is
 * also the queue node ({@link QueueNode}) of the op's first registration that needs one.
 *
 * <p>Thread-safety: every field is set on the pusher thread before registration and not changed while
 * the op is pushed; the registration and the op's readiness latch publish them to the thread that
 * dispatches it. Only a replay's retired block is pushed again ({@link #repush}), by the one replay that
 * took it.
 */
abstract sealed class PushedOp extends QueueNode.Writable implements OpInfo permits OpLatch {
    final OpDef def;
    final Context ctx;
    final int priority;
    final boolean profiling;
    long id;
    OpListener listener;
    private OpAccount account;
    private final OpDevice device;
    private OpRoute route;    // set once before registration, see setRoute
    ReplaySlot slot;          // a replay's op: its place in the graph's block pool; else null
    private boolean nodeUsed; // pusher only: whether the op is already its own queue node

    PushedOp(OpDef def, Context ctx, int priority, boolean profiling, long id, OpListener listener,
             OpAccount account, OpDevice device) {
        this.def = def;
        this.ctx = ctx;
        this.priority = priority;
        this.profiling = profiling;
        this.id = id;
        this.listener = listener;
        this.account = account;
        this.device = device;
    }

    /**
     * The queue node for one read registration of this op (under that variable's lock, on the pusher):
     * the op itself the first time, then another node (a replay's slot keeps its own, made once).
     */
    QueueNode readNode() {
        QueueNode n;
        if (nodeUsed) {
            n = slot != null ? slot.spareNode() : new QueueNode.ExtraRead(op());
        } else {
            nodeUsed = true;
            n = this;
        }
        n.write = false;
        return n;
    }

    /**
     * As {@link #readNode()}, for a write registration. Its reads-behind count and next-write link start
     * empty: a replay's reused block or spare node keeps the values of its last push (a completed write
     * leaves its count as it was).
     */
    QueueNode.Writable writeNode() {
        QueueNode.Writable n;
        if (nodeUsed) {
            n = slot != null ? slot.spareNode() : new QueueNode.ExtraWrite(op());
        } else {
            nodeUsed = true;
            n = this;
        }
        n.write = true;
        n.readsBehind = 0;
        n.nextWrite = null;
        return n;
    }

    /**
     * Readies a retired replay's block for its next push: every node it used has left its variable's
     * queue, and nobody else holds the block. Pusher thread, before registration.
     */
    void repush(long newId, OpListener newListener, OpAccount newAccount) {
        id = newId;
        listener = newListener;
        account = newAccount;
        route = null;
        nodeUsed = false;
    }

    @Override
    final OpBlock op() {
        return (OpBlock) this; // the only concrete subclass
    }

    /** The op's definition. */
    public OpDef def() {
        return def;
    }

    /** The listener captured at push, or null. */
    public OpListener listener() {
        return listener;
    }

    /** The pending-op count the op entered at push, to be exited once when it is finished; null where the host keeps none. */
    public OpAccount account() {
        return account;
    }

    /** The device the op runs on, or null for internal ops. */
    public OpDevice device() {
        return device;
    }

    /**
     * Sets where the op goes when it becomes ready on a thread that does not run it. Once, by the
     * engine's dispatch policy, on the pusher thread, before registration.
     *
     * @throws IllegalStateException if a route was set already
     */
    public void setRoute(OpRoute r) {
        if (route != null) {
            throw new IllegalStateException("the route of " + this + " is set already");
        }
        route = r;
    }

    /** The route the engine set before registration, or null if it set none. */
    public OpRoute route() {
        return route;
    }

    /** The op's replay slot, or null for an op pushed on its own. */
    public ReplaySlot slot() {
        return slot;
    }

    /** The graph whose replay pushed this op, or null for an op pushed on its own. */
    public Object replayOf() {
        ReplaySlot s = slot;
        return s == null ? null : s.graph();
    }

    @Override
    public Context context() {
        return ctx;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public String name() {
        String n = def.givenName();
        return n != null ? n : "op#" + id;
    }

    @Override
    public boolean named() {
        return def.givenName() != null;
    }

    @Override
    public FnProperty property() {
        return def.prop();
    }

    @Override
    public int priority() {
        return priority;
    }

    @Override
    public List<org.depengine.api.VarHandle> reads() {
        return def.readList();
    }

    @Override
    public List<org.depengine.api.VarHandle> writes() {
        return def.writeList();
    }

    @Override
    public boolean profiling() {
        return profiling;
    }

    /** The op's own arguments, and for a replayed op the replay's number as {@code "replay"} (a map made per call). */
    @Override
    public Map<String, Object> args() {
        ReplaySlot s = slot;
        if (s == null) {
            return def.args();
        }
        Map<String, Object> withReplay = new LinkedHashMap<>(def.args());
        withReplay.put("replay", s.replay());
        return Collections.unmodifiableMap(withReplay);
    }

    @Override
    public String toString() {
        return "op '" + name() + "' on " + ctx;
    }
}
