package org.depengine.profiler;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.depengine.api.Context;

/**
 * A snapshot of the rings joined into ops, lanes and dependency arrows: what one dump, HTML page or
 * statistics table shows. Built by one thread, then read only. Not part of the API.
 */
final class TraceModel {
    /** tid offset of stream lanes, so they sort after thread lanes and never clash with them. */
    static final int STREAM_TID_BASE = 100_000;
    /** tid of the lane of device parts of ops that ran without a stream. */
    static final int DEVICE_TID = 99_999;

    /** One complete op. */
    static final class Op {
        long id;
        String name = "?";
        int property = 0xFF;
        int priority;
        boolean profiling;
        int outcome = Rec.OUTCOME_UNKNOWN;
        int pid;
        Context context;
        long ready = -1;
        long started = -1;
        long launched = -1;
        long finished = -1;
        long deviceStart = -1;
        int hostTid;
        int devicePid;
        int deviceTid;
        int streamId;
        String streamName;
        String[] reads = new String[0];
        String[] writes = new String[0];
        int totalReads;
        int totalWrites;
        /** Argument names and values (Long, Double, Boolean or String), in the order given; empty for none. */
        Map<String, Object> args = Map.of();
        boolean hasInfo;
        /** A merged op's members ({@code OpListener.memberFinished}) in push order; empty for other ops. */
        List<Member> members = List.of();

        boolean isDevice() {
            return launched >= 0;
        }

        /** The end of the host part: launch for device ops, else the finish. */
        long hostEnd() {
            return isDevice() ? launched : finished;
        }

        long queueWait() {
            return ready >= 0 ? Math.max(0, started - ready) : -1;
        }

        long runTime() {
            return finished - started;
        }

        long hostTime() {
            return hostEnd() - started;
        }

        long deviceTime() {
            return isDevice() ? finished - deviceStart : 0;
        }
    }

    /**
     * One member of a bulk's merged op: it ran on the merged op's thread, inside its run time.
     *
     * @param index its position in the merged op, from 0
     * @param name the name it was pushed with
     * @param outcome a {@code Rec.OUTCOME_*} value
     * @param start nanoTime before it ran (when it was skipped, for a skipped member)
     * @param end nanoTime after it ran ({@code start} for a skipped member)
     */
    record Member(int index, String name, int outcome, long start, long end) {
        long duration() {
            return end - start;
        }
    }

    /** A dependency arrow between two complete ops. */
    record Flow(long id, Op from, Op to) {
    }

    /** A lane: one thread or stream of one process (device context). */
    record Lane(int pid, int tid, String name) {
    }

    final List<Op> ops = new ArrayList<>();
    final List<Flow> flows = new ArrayList<>();
    /** pid → device context text, in pid order. */
    final Map<Integer, String> processes = new TreeMap<>();
    /** Lanes in (pid, tid) order. */
    final List<Lane> lanes = new ArrayList<>();
    long origin;
    long dropped;
    /** Ops some of whose records are missing, or still in flight. */
    long incomplete;
    boolean namesOverflowed;

    private TraceModel() {
    }

    static TraceModel build(Session s, long dropped) {
        TraceModel m = new TraceModel();
        m.dropped = dropped;
        m.namesOverflowed = s.opNames.overflowed() || s.varNames.overflowed();
        Map<Long, Op> byId = new HashMap<>();
        List<long[]> edges = new ArrayList<>();
        Map<Integer, String> threadNames = new HashMap<>();
        List<Ring> rings = s.rings();
        long[] w = new long[s.ringCapacity * 3];
        long[] idx = new long[s.ringCapacity];
        for (Ring ring : rings) {
            int n = ring.snapshot(w, idx);
            threadNames.put(ring.index + 1, ring.displayName());
            int tid = ring.index + 1;
            int i = 0;
            while (i < n) {
                long w1 = w[i * 3];
                long a = w[i * 3 + 1];
                long b = w[i * 3 + 2];
                switch (Rec.kind(w1)) {
                    case Rec.READY:
                        op(byId, a).ready = b;
                        i++;
                        break;
                    case Rec.STARTED: {
                        Op o = op(byId, a);
                        o.started = b;
                        o.hostTid = tid;
                        i++;
                        break;
                    }
                    case Rec.LAUNCHED:
                        op(byId, a).launched = b;
                        i++;
                        break;
                    case Rec.FINISHED:
                        i = finished(s, byId, w, idx, n, i);
                        break;
                    case Rec.RELEASED:
                        edges.add(new long[] {a, b});
                        i++;
                        break;
                    case Rec.MEMBER:
                        i = member(s, byId, w, idx, n, i);
                        break;
                    default:
                        i++; // an INFO, VARS, ARGS or MEMBER_END record whose first record was overwritten
                        break;
                }
            }
        }
        long origin = Long.MAX_VALUE;
        Map<Integer, List<Op>> byStream = new HashMap<>();
        for (Op o : byId.values()) {
            if (o.started < 0 || o.finished < 0 || !o.hasInfo) {
                m.incomplete++;
                continue;
            }
            m.ops.add(o);
            origin = Math.min(origin, o.ready >= 0 ? Math.min(o.ready, o.started) : o.started);
            if (o.isDevice()) {
                byStream.computeIfAbsent(o.streamId, k -> new ArrayList<>()).add(o);
            }
        }
        m.origin = origin == Long.MAX_VALUE ? 0 : origin;
        // An in-order stream runs an op's device work after the previous op's: that, not the launch,
        // is where its device part starts, and it keeps the parts on one stream lane from overlapping.
        for (List<Op> list : byStream.values()) {
            list.sort(Comparator.comparingLong((Op o) -> o.launched).thenComparingLong(o -> o.id));
            long prevEnd = Long.MIN_VALUE;
            for (Op o : list) {
                o.deviceStart = o.streamId == 0 ? o.launched : Math.max(o.launched, prevEnd);
                o.deviceStart = Math.min(o.deviceStart, o.finished);
                prevEnd = Math.max(prevEnd, o.finished);
            }
        }
        m.ops.sort(Comparator.comparingLong((Op o) -> o.started).thenComparingLong(o -> o.id));
        // lanes
        Map<Long, Lane> lanes = new LinkedHashMap<>();
        for (Op o : m.ops) {
            m.processes.put(o.pid, o.context == null ? "unknown device" : o.context.toString());
            lanes.computeIfAbsent(key(o.pid, o.hostTid), k -> new Lane(o.pid, o.hostTid,
                    threadNames.getOrDefault(o.hostTid, "thread " + o.hostTid)));
            if (o.isDevice()) {
                int devPid = o.pid;
                StreamTable.Info info = o.streamId == 0 ? null : s.streams.info(o.streamId);
                if (info != null && info.context() != null) {
                    devPid = s.contexts.id(info.context());
                    m.processes.put(devPid, info.context().toString());
                }
                o.deviceTid = info == null ? DEVICE_TID : STREAM_TID_BASE + o.streamId;
                o.streamName = info == null ? "device" : "stream " + info.kind() + "#" + info.ordinal();
                final int p = devPid;
                final String laneName = o.streamName;
                lanes.computeIfAbsent(key(devPid, o.deviceTid), k -> new Lane(p, o.deviceTid, laneName));
                o.devicePid = devPid;
            } else if (o.streamId != 0) {
                StreamTable.Info info = s.streams.info(o.streamId);
                o.streamName = info == null ? null : "stream " + info.kind() + "#" + info.ordinal();
            }
        }
        m.lanes.addAll(lanes.values());
        m.lanes.sort(Comparator.comparingInt(Lane::pid).thenComparingInt(Lane::tid));
        // flows, in the order they were reported per thread; both ends must be in the trace
        long flowId = 1;
        for (long[] e : edges) {
            Op from = byId.get(e[0]);
            Op to = byId.get(e[1]);
            if (from != null && to != null && from.hasInfo && to.hasInfo
                    && from.started >= 0 && from.finished >= 0 && to.started >= 0 && to.finished >= 0) {
                m.flows.add(new Flow(flowId++, from, to));
            }
        }
        return m;
    }

    private static long key(int pid, int tid) {
        return ((long) pid << 32) | (tid & 0xFFFF_FFFFL);
    }

    private static Op op(Map<Long, Op> byId, long id) {
        return byId.computeIfAbsent(id, k -> {
            Op o = new Op();
            o.id = k;
            return o;
        });
    }

    /** Reads a MEMBER group starting at record i into its merged op; returns the index after it. */
    private static int member(Session s, Map<Long, Op> byId, long[] w, long[] idx, int n, int i) {
        int j = i + 1;
        if (j >= n || idx[j] != idx[i] + 1 || Rec.kind(w[j * 3]) != Rec.MEMBER_END) {
            return j; // its end was recycled while we read: the member is left out
        }
        long w1 = w[i * 3];
        Op o = op(byId, w[i * 3 + 1]);
        if (o.members.isEmpty()) {
            o.members = new ArrayList<>();
        }
        String name = s.opNames.key(Rec.hi(w1));
        o.members.add(new Member(Rec.lo(w[j * 3 + 1]), name == null ? "(other)" : name, (int) ((w1 >>> 8) & 0xF),
                w[i * 3 + 2], w[j * 3 + 2]));
        return j + 1;
    }

    /** Reads a FINISHED group starting at record i; returns the index after it. */
    private static int finished(Session s, Map<Long, Op> byId, long[] w, long[] idx, int n, int i) {
        long w1 = w[i * 3];
        Op o = op(byId, w[i * 3 + 1]);
        o.finished = w[i * 3 + 2];
        o.outcome = (int) ((w1 >>> 8) & 0xF);
        o.property = (int) ((w1 >>> 12) & 0xFF);
        o.profiling = ((w1 >>> 20) & 1) != 0;
        int ka = (int) ((w1 >>> 21) & Rec.MAX_ARGS);
        int ctxId = Rec.hi(w1);
        o.pid = ctxId;
        o.context = s.contexts.key(ctxId);
        int j = i + 1;
        if (j >= n || idx[j] != idx[i] + 1 || Rec.kind(w[j * 3]) != Rec.INFO) {
            return j; // its INFO was recycled while we read: the op stays incomplete
        }
        long i1 = w[j * 3];
        int kr = (int) ((i1 >>> 8) & 0xFFF);
        int kw = (int) ((i1 >>> 20) & 0xFFF);
        if ((w1 & Rec.UNNAMED) != 0) {
            o.name = "op#" + o.id;
        } else {
            String name = s.opNames.key(Rec.hi(i1));
            o.name = name == null ? "(other)" : name;
        }
        o.priority = Rec.lo(w[j * 3 + 1]);
        o.streamId = Rec.hi(w[j * 3 + 1]);
        o.totalReads = Rec.lo(w[j * 3 + 2]);
        o.totalWrites = Rec.hi(w[j * 3 + 2]);
        int total = kr + kw;
        int records = (total + Rec.VARS_PER_RECORD - 1) / Rec.VARS_PER_RECORD;
        String[] vars = new String[total];
        int k = 0;
        for (int r = 0; r < records; r++) {
            int at = j + 1 + r;
            if (at >= n || idx[at] != idx[j] + 1 + r || Rec.kind(w[at * 3]) != Rec.VARS) {
                return at; // a VARS record was recycled: incomplete
            }
            long v1 = w[at * 3];
            int c = (int) ((v1 >>> 8) & 0xFF);
            int[] ids = {Rec.hi(v1), Rec.lo(w[at * 3 + 1]), Rec.hi(w[at * 3 + 1]), Rec.lo(w[at * 3 + 2]), Rec.hi(w[at * 3 + 2])};
            for (int q = 0; q < c && k < total; q++) {
                String vn = s.varNames.key(ids[q]);
                vars[k++] = vn == null ? "(other)" : vn;
            }
        }
        o.reads = java.util.Arrays.copyOfRange(vars, 0, Math.min(kr, k));
        o.writes = java.util.Arrays.copyOfRange(vars, Math.min(kr, k), k);
        int first = j + 1 + records;
        if (ka > 0) {
            Map<String, Object> args = new LinkedHashMap<>();
            for (int q = 0; q < ka; q++) {
                int at = first + q;
                if (at >= n || idx[at] != idx[j] + 1 + records + q || Rec.kind(w[at * 3]) != Rec.ARGS) {
                    return at; // an ARGS record was recycled: incomplete
                }
                long a1 = w[at * 3];
                String key = s.argKeys.key(Rec.hi(a1));
                args.put(key == null ? "(other)" : key, argValue(s, (int) ((a1 >>> 8) & 0xFF), w[at * 3 + 1]));
            }
            o.args = args;
        }
        o.hasInfo = true;
        return first + ka;
    }

    private static Object argValue(Session s, int type, long bits) {
        switch (type) {
            case Rec.ARG_LONG:
                return bits;
            case Rec.ARG_DOUBLE:
                return Double.longBitsToDouble(bits);
            case Rec.ARG_BOOLEAN:
                return bits != 0;
            default:
                String text = s.argTexts.key((int) bits);
                return text == null ? "(other)" : text;
        }
    }
}
