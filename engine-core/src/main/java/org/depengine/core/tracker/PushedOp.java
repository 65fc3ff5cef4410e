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
 * What a push fixes about one run of an op, before it is registered: its definition, context,
 * priority, id and listener, the pending-op count it entered, its device, and the engine's route. It
 * is also the queue node ({@link QueueNode}) of the op's first registration that needs one.
 * {@link OpBlock} adds the run's lifecycle; this part never changes once the op is registered.
 *
 * <p>Thread-safety: every field is set on the pusher thread before registration and not changed
 * while the op is pushed; the registration and the op's wait counter publish them to the thread that
 * dispatches the op. Only a replay's block, once retired, is pushed again ({@link #repush}): its id,
 * listener, pending count, route and replay number are then set anew, by the next replaying thread.
 */
abstract sealed class PushedOp extends QueueNode.Writable implements OpInfo permits OpBlock {
    final OpDef def;
    final Context ctx;
    final int priority;
    final boolean profiling;
    long id;
    OpListener listener;
    private OpAccount account;
    private final OpDevice device;
    private OpRoute route; // set once before registration, see setRoute
    private Object replayOf; // the graph whose replay pushed this op, or null; set once before registration
    private long replay;     // that replay's number, from 1
    private boolean nodeUsed; // pusher only: whether the op is already its own queue node (QueueNode)
    private QueueNode.ExtraWrite[] spareNodes; // a replay's block: its other queue nodes (each fit for a read or a write), made once; else null
    private int spareUsed;    // pusher only: how many of spareNodes this push used

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
     * the op itself the first time, a new node after that.
     */
    QueueNode readNode() {
        QueueNode n;
        if (nodeUsed) {
            n = spareNodes != null ? spareNodes[spareUsed++] : new QueueNode.ExtraRead(op());
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
            n = spareNodes != null ? spareNodes[spareUsed++] : new QueueNode.ExtraWrite(op());
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
     * Gives a replay's block {@code n} queue nodes besides itself, made once and used by each of its
     * pushes (an op is queued at most once per registered access). Pusher thread, before registration.
     */
    void keepSpareNodes(int n) {
        spareNodes = new QueueNode.ExtraWrite[n];
        for (int i = 0; i < n; i++) {
            spareNodes[i] = new QueueNode.ExtraWrite(op());
        }
    }

    /**
     * Readies a retired replay's block for its next push (see {@link OpBlock#reuse}): every node it used
     * has left its variable's queue, and nobody else holds the block. Pusher thread, before registration.
     */
    void repush(long newId, OpListener newListener, OpAccount newAccount) {
        id = newId;
        listener = newListener;
        account = newAccount;
        route = null;
        nodeUsed = false;
        spareUsed = 0;
    }

    @Override
    final OpBlock op() {
        return (OpBlock) this; // the only subclass
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
     * engine's {@code prepare}, on the pusher thread, before registration.
     *
     * @throws IllegalStateException if a route was set already
     */
    public void setRoute(OpRoute r) {
        if (route != null) {
            throw new IllegalStateException("the route of " + this + " is set already");
        }
        route = r;
    }

    /**
     * Marks the op as pushed by replay number {@code n} (from 1) of {@code graph}. On the pusher thread,
     * before registration (published as the route is); again at each reuse of a replay's block.
     */
    public void setReplay(Object graph, long n) {
        replayOf = graph;
        replay = n;
    }

    /** The graph whose replay pushed this op, or null for an op pushed on its own. */
    public Object replayOf() {
        return replayOf;
    }

    /** The route the engine set before registration, or null if it set none. */
    public OpRoute route() {
        return route;
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
        if (replayOf == null) {
            return def.args();
        }
        Map<String, Object> withReplay = new LinkedHashMap<>(def.args());
        withReplay.put("replay", replay);
        return Collections.unmodifiableMap(withReplay);
    }

    @Override
    public String toString() {
        return "op '" + name() + "' on " + ctx;
    }
}
