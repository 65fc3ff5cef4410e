package org.depengine.profiler;

import java.util.List;
import java.util.Map;
import org.depengine.api.Context;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Stream;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link OpListener} a {@link Profiler} adds to its engine: records each event into the calling
 * thread's {@link Ring} while the profiler is {@link Profiler.State#RUNNING running}, and commits
 * {@link OpEvent}s (and {@link BulkMemberEvent}s) for JFR. Never blocks, never throws, allocates nothing
 * per op or bulk member (but for the JFR events, and for an op's arguments when it has some). Not part
 * of the API.
 */
/*
 * Listener calls go to the calling thread's Ring (ThreadLocal, checked against the current Session so
 * clear() is one volatile write). READY, STARTED and LAUNCHED are one record each; FINISHED is a group
 * of FINISHED + INFO (name, priority, stream) + VARS (+ ARGS) records, so the static facts of an op are
 * copied once, from the OpInfo, while it is still valid; RELEASED is one record per dependency arrow;
 * a bulk member is MEMBER + MEMBER_END, keyed by the merged op's id (not by position in the ring, which
 * may lap).
 * Names, contexts, streams and text arguments become small int ids through capped tables. JFR: an op's
 * durations are only known to the finishing thread through InFlight, which is written only while the
 * OpEvent type is enabled.
 */
final class Recorder implements OpListener {
    private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);
    private static final int MAX_OP_NAMES = 1 << 14;
    private static final int MAX_VAR_NAMES = 1 << 16;

    private final Profiler owner;
    private final Profiler.Mode mode;
    private final int ringCapacity;
    private final int maxThreads;
    private final boolean jfr;
    private final ThreadLocal<Ring> local = new ThreadLocal<>();
    private final InFlight inFlight = new InFlight(1 << 14);
    private volatile Session session;

    Recorder(Profiler owner, Settings settings) {
        this.owner = owner;
        this.mode = settings.mode();
        this.ringCapacity = settings.ringCapacity();
        this.maxThreads = settings.maxThreads();
        this.jfr = settings.jfr();
        this.session = newSession();
    }

    /** Forgets everything recorded: threads move to the new session's rings at their next event. */
    void clear() {
        session = newSession();
    }

    private Session newSession() {
        return new Session(ringCapacity, maxThreads, MAX_OP_NAMES, MAX_VAR_NAMES);
    }

    /** What is recorded now, joined into ops. */
    TraceModel snapshot() {
        return TraceModel.build(session, droppedRecords());
    }

    /** How many distinct op names the current session interned (tests). */
    int opNamesInterned() {
        return session.opNames.size();
    }

    long droppedRecords() {
        Session s = session;
        long d = s.lostRecords.sum();
        for (Ring r : s.rings()) {
            d += r.dropped();
        }
        return d;
    }

    private boolean accepts(OpInfo op) {
        return owner.isRecording() && (mode == Profiler.Mode.ALL || op.profiling());
    }

    /** The calling thread's ring in the current session, or the session's refused ring. */
    private Ring ring() {
        Session s = session;
        Ring r = local.get();
        if (r == null || r.session != s) {
            r = s.newRing(Thread.currentThread());
            local.set(r);
        }
        return r;
    }

    private void one(int kind, long a, long b) {
        Ring r = ring();
        if (r == r.session.refused) {
            r.session.lostRecords.increment();
            return;
        }
        r.put(kind, a, b);
        r.publish();
    }

    // pushed(): not implemented, so the engine reads no clock for it; the trace needs no push time.

    /** Records the ready time (the start of the queue wait). */
    @Override
    public void ready(OpInfo op, long nanoTime) {
        timed(op, Rec.READY, InFlight.READY, nanoTime);
    }

    /** Records the start on the calling thread (its lane in the trace). */
    @Override
    public void started(OpInfo op, long nanoTime) {
        timed(op, Rec.STARTED, InFlight.STARTED, nanoTime);
    }

    /** Records the end of a device op's host part. */
    @Override
    public void launched(OpInfo op, long nanoTime) {
        timed(op, Rec.LAUNCHED, InFlight.LAUNCHED, nanoTime);
    }

    private void timed(OpInfo op, int kind, int jfrSlot, long nanoTime) {
        try {
            if (accepts(op)) {
                long id = op.id();
                one(kind, id, nanoTime);
                if (jfr && JfrSupport.enabled()) {
                    inFlight.set(id, jfrSlot, nanoTime);
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("profiler: event {} ignored", kind, e);
        }
    }

    /**
     * Records the end and copies the op's static facts (name, property, priority, context, stream,
     * variables, arguments); commits an {@link OpEvent} when JFR records it.
     */
    @Override
    public void finished(OpInfo op, long nanoTime) {
        try {
            if (accepts(op)) {
                recordFinished(op, nanoTime);
                if (jfr && JfrSupport.enabled()) {
                    commitJfr(op, nanoTime);
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("profiler: finished event ignored", e);
        }
    }

    /**
     * Records a member of a bulk's merged op (two records: its name, outcome and times, joined to the
     * merged op by its id); commits a {@link BulkMemberEvent} when JFR records it.
     */
    @Override
    public void memberFinished(OpInfo bulk, int index, String memberName, OpInfo.Outcome outcome,
                               long startNanos, long endNanos) {
        try {
            if (accepts(bulk)) {
                Ring r = ring();
                Session s = r.session;
                if (r == s.refused) {
                    s.lostRecords.add(2);
                    return;
                }
                int nameId = s.opNames.id(String.valueOf(memberName));
                r.put(Rec.MEMBER | ((long) Rec.outcome(outcome) << 8) | ((long) nameId << 32), bulk.id(), startNanos);
                r.put(Rec.MEMBER_END, index, endNanos);
                r.publish();
                if (jfr && JfrSupport.membersEnabled()) {
                    commitMemberJfr(bulk, index, memberName, outcome, endNanos - startNanos);
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("profiler: member event ignored", e);
        }
    }

    /** Records a dependency arrow when both ends are recorded. */
    @Override
    public void released(OpInfo producer, OpInfo consumer) {
        try {
            if (owner.isRecording() && (mode == Profiler.Mode.ALL || (producer.profiling() && consumer.profiling()))) {
                one(Rec.RELEASED, producer.id(), consumer.id());
            }
        } catch (RuntimeException e) {
            LOG.debug("profiler: released event ignored", e);
        }
    }

    /** The engine closed: the profiler takes its "engine closed" transition (see {@link Profiler}). */
    @Override
    public void closed() {
        owner.engineClosed();
    }

    private void recordFinished(OpInfo op, long nanoTime) {
        Ring r = ring();
        Session s = r.session;
        List<VarHandle> reads = op.reads();
        List<VarHandle> writes = op.writes();
        Map<String, Object> args = op.args();
        int nr = reads == null ? 0 : reads.size();
        int nw = writes == null ? 0 : writes.size();
        int kr = Math.min(nr, Rec.MAX_VARS);
        int kw = Math.min(nw, Rec.MAX_VARS);
        int ka = args == null ? 0 : Math.min(args.size(), Rec.MAX_ARGS);
        if (r == s.refused) {
            s.lostRecords.add(2 + (kr + kw + Rec.VARS_PER_RECORD - 1) / Rec.VARS_PER_RECORD + ka);
            return;
        }
        int ctxId = contextId(r, s, op.context());
        int streamId = streamId(r, s, op.stream());
        // An unnamed op's generated name is unique per op: interning it would cost a string and a
        // table insert per op, and fill the table; the trace builds it from the id instead.
        boolean named = op.named();
        int nameId = named ? s.opNames.id(String.valueOf(op.name())) : Interner.OVERFLOW;
        int outcome = Rec.outcome(op.outcome());
        int prop = op.property() == null ? 0xFF : op.property().ordinal();
        long w1 = Rec.FINISHED | ((long) outcome << 8) | ((long) (prop & 0xFF) << 12)
                | (op.profiling() ? 1L << 20 : 0L) | ((long) ka << 21) | (named ? 0L : Rec.UNNAMED)
                | ((long) ctxId << 32);
        r.put(w1, op.id(), nanoTime);
        r.put(Rec.INFO | ((long) kr << 8) | ((long) kw << 20) | ((long) nameId << 32),
                (op.priority() & 0xFFFF_FFFFL) | ((long) streamId << 32),
                (nr & 0xFFFF_FFFFL) | ((long) nw << 32));
        // variables: reads then writes, five ids per record
        int total = kr + kw;
        for (int i = 0; i < total; i += Rec.VARS_PER_RECORD) {
            int c = Math.min(Rec.VARS_PER_RECORD, total - i);
            r.put(Rec.VARS | ((long) c << 8) | ((long) varId(s, reads, writes, kr, i, c) << 32),
                    (varId(s, reads, writes, kr, i + 1, c) & 0xFFFF_FFFFL) | ((long) varId(s, reads, writes, kr, i + 2, c) << 32),
                    (varId(s, reads, writes, kr, i + 3, c) & 0xFFFF_FFFFL) | ((long) varId(s, reads, writes, kr, i + 4, c) << 32));
        }
        if (ka > 0) {
            putArgs(r, s, args, ka);
        }
        r.publish();
    }

    /** One ARGS record per argument kept: the key's id, the value's type and bits (or its text's id). */
    private static void putArgs(Ring r, Session s, Map<String, Object> args, int keep) {
        int k = 0;
        for (Map.Entry<String, Object> e : args.entrySet()) {
            if (k++ == keep) {
                break;
            }
            Object v = e.getValue();
            int type;
            long bits;
            if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
                type = Rec.ARG_LONG;
                bits = ((Number) v).longValue();
            } else if (v instanceof Double || v instanceof Float) {
                type = Rec.ARG_DOUBLE;
                bits = Double.doubleToRawLongBits(((Number) v).doubleValue());
            } else if (v instanceof Boolean) {
                type = Rec.ARG_BOOLEAN;
                bits = ((Boolean) v) ? 1 : 0;
            } else {
                type = Rec.ARG_TEXT;
                bits = s.argTexts.id(String.valueOf(v));
            }
            r.put(Rec.ARGS | ((long) type << 8) | ((long) s.argKeys.id(String.valueOf(e.getKey())) << 32), bits, 0);
        }
    }

    /** The name id of the k-th variable (reads then writes) if it is within this record's count, else 0. */
    private static int varId(Session s, List<VarHandle> reads, List<VarHandle> writes, int kr, int k, int count) {
        int first = k - (k % Rec.VARS_PER_RECORD);
        if (k - first >= count) {
            return 0;
        }
        VarHandle v = k < kr ? reads.get(k) : writes.get(k - kr);
        return s.varNames.id(v == null ? "null" : v.name());
    }

    private static int contextId(Ring r, Session s, Context c) {
        if (c == null) {
            return Interner.OVERFLOW;
        }
        if (c == r.lastContext) {
            return r.lastContextId;
        }
        int id = s.contexts.id(c);
        r.lastContext = c;
        r.lastContextId = id;
        return id;
    }

    private static int streamId(Ring r, Session s, Stream st) {
        if (st == null) {
            return 0;
        }
        if (st == r.lastStream) {
            return r.lastStreamId;
        }
        int id = s.streams.id(st);
        r.lastStream = st;
        r.lastStreamId = id;
        return id;
    }

    private static void commitMemberJfr(OpInfo bulk, int index, String memberName, OpInfo.Outcome outcome, long runTime) {
        BulkMemberEvent e = new BulkMemberEvent();
        if (!e.shouldCommit()) {
            return;
        }
        e.bulkId = bulk.id();
        e.bulkName = bulk.name();
        e.index = index;
        e.memberName = memberName;
        e.outcome = String.valueOf(outcome);
        e.runTime = runTime;
        e.commit();
    }

    private void commitJfr(OpInfo op, long nanoTime) {
        OpEvent e = new OpEvent();
        if (!e.shouldCommit()) {
            return;
        }
        long[] t = new long[3];
        inFlight.get(op.id(), t);
        long ready = t[0];
        long started = t[1];
        long launched = t[2];
        e.opId = op.id();
        e.opName = op.name();
        e.device = String.valueOf(op.context());
        Stream st = op.stream();
        if (st != null) {
            Session s = session;
            StreamTable.Info info = s.streams.info(s.streams.id(st));
            e.stream = info == null ? String.valueOf(st.kind()) : info.kind() + "#" + info.ordinal();
        }
        e.property = String.valueOf(op.property());
        e.priority = op.priority();
        e.outcome = String.valueOf(op.outcome());
        e.queueWait = ready >= 0 && started >= 0 ? started - ready : -1;
        e.runTime = started >= 0 ? nanoTime - started : -1;
        if (launched >= 0 && started >= 0) {
            e.hostTime = launched - started;
            e.deviceTime = nanoTime - launched;
        } else {
            e.hostTime = e.runTime;
            e.deviceTime = 0;
        }
        e.commit();
    }
}
