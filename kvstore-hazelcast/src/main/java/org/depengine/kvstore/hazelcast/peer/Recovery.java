package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.depengine.kvstore.hazelcast.protocol.ElasticRule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link PeerExchange} of an elastic job moves to a new view ({@code docs/elastic-design.md}, section 8),
 * carrying every key's rounds over by {@link ElasticRule}:
 * <ol>
 *   <li><b>Freeze.</b> Told the view ({@link #begin}), the worker takes no frame of its old view and starts no
 *   apply; once the applies running have ended, its state of every key is fixed.</li>
 *   <li><b>Report.</b> It sends that state (per key: the round applied, the one before, whether it keeps that
 *   round's sum, its last push) in one REPORT frame to the new view's rank 0, the leader.</li>
 *   <li><b>Decide.</b> With every survivor's report, the leader decides each key by {@link ElasticRule} and
 *   sends every survivor the DECISION.</li>
 *   <li><b>Install.</b> Each survivor lays its keys out for the new view (the old view's partial rounds
 *   dropped), sends what it was named to send (a kept sum to a survivor one round behind, its state to one
 *   further behind), sends again its pushes after the agreed round and its end of data, and takes the frames
 *   of the new view that came early. Behind survivors apply nothing until what they were sent arrives.</li>
 * </ol>
 * A view told while one is being recovered into replaces it: the worker reports again, for the later view,
 * from its state (which the earlier view's install may have moved on). Frames of a view a worker has left are
 * dropped; frames of a view it has not installed yet wait for it. Called under the exchange's lock.
 */
final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    /** One frame of a view not installed yet, as it arrived. */
    private record Held(int from, Frame frame, ByteBuf payload) {
    }

    /** The leader's decision for one key. */
    private record KeyDecision(String key, int length, long agreed, int[] actions, int[] from) {
    }

    private final PeerExchange x;
    /** The view being recovered into; the view installed when none is. */
    private int target;
    private int[] targetMids;
    private boolean reported;
    private long frozeAt;
    /** Reports that reached this worker as a leader: epoch, then place on the wire, then the report. */
    private final Map<Integer, Map<Integer, ByteBuf>> reports = new HashMap<>();
    private final List<Held> held = new ArrayList<>();
    /** The view installed whose rounds wait until the store has told its listeners ({@link #release}), or -1. */
    private int holding = -1;
    /** Who is told each view installed here, or null. */
    volatile ViewListener listener;
    /** An elastic job's bound on a view change ({@code recoveryTimeoutMs}); 0: none. */
    volatile long timeoutMs;

    Recovery(PeerExchange x) {
        this.x = x;
    }

    /** Whether a view change is under way: the old view's frames and applies are stopped. */
    boolean frozen() {
        return target > x.epoch;
    }

    /** Whether no round may be applied now: a change is under way, or the store has not told its listeners of the last one. */
    boolean stopsApplies() {
        return frozen() || holding >= 0;
    }

    /**
     * Why the change under way is late: it began more than {@link #timeoutMs} ago and is not installed (a report
     * or the decision never came: its sender was lost too, and no later view has replaced it yet); else null.
     */
    String overdue() {
        long limitMs = timeoutMs;
        if (!frozen() || limitMs <= 0 || System.nanoTime() - frozeAt <= limitMs * 1_000_000L) {
            return null;
        }
        String waits;
        if (!reported) {
            waits = "this worker's applies running";
        } else if (targetMids[0] == x.mid) {
            List<Integer> missing = new ArrayList<>();
            Map<Integer, ByteBuf> got = reports.getOrDefault(target, Map.of());
            for (int r = 0; r < targetMids.length; r++) {
                if (!got.containsKey(targetMids[r])) {
                    missing.add(r);
                }
            }
            waits = "the reports of its ranks " + missing;
        } else {
            waits = "the decision of its rank 0";
        }
        return "the move to view " + target + " did not finish within recoveryTimeoutMs=" + limitMs + " (it waits for "
                + waits + "); the job cannot go on here";
    }

    /** The store has told its listeners of view {@code epoch} (and those before): its rounds may be applied. */
    void release(int epoch) {
        if (epoch >= holding) {
            holding = -1;
        }
    }

    /** View {@code epoch} of the workers at places {@code mids} (rank order) is the job's: freeze, then report. */
    void begin(int epoch, int[] mids) {
        if (epoch <= target) {
            LOG.debug("rank {}: view {} told again (view {} is installed or being installed)", x.rank, epoch, target);
            return;
        }
        target = epoch;
        targetMids = mids.clone();
        reported = false;
        frozeAt = System.nanoTime();
        reports.keySet().removeIf(e -> {
            boolean stale = e < epoch;
            if (stale) {
                reports.get(e).values().forEach(ByteBuf::release);
            }
            return stale;
        });
        held.removeIf(h -> {
            boolean stale = h.frame().epoch() < epoch; // of a view this worker will never install
            if (stale) {
                PeerExchange.release(h.payload());
            }
            return stale;
        });
        if (indexOf(targetMids, x.mid) < 0) {
            x.failAll("this worker is not a member of the job's view " + epoch + " (the others lost contact with it); "
                    + "it can come back only as a new worker");
            return;
        }
        LOG.info("rank {}: moving to view {} of {} workers; reporting to its rank 0", x.rank, epoch, mids.length);
        applyEnded();
    }

    /**
     * An apply ended (or none was running): once none runs during a change, this worker reports.
     *
     * @return whether that installed the view (a leader's own report can be the last): every key may apply
     */
    boolean applyEnded() {
        int before = x.epoch;
        report();
        return x.epoch != before;
    }

    private void report() {
        if (!frozen() || reported) {
            return;
        }
        for (PeerKey pk : x.keys.values()) {
            if (pk.applying) {
                return;
            }
        }
        reported = true;
        ByteBuf payload = state();
        if (targetMids[0] == x.mid) {
            takeReport(x.mid, target, payload);
        } else {
            x.transport.send(targetMids[0], Frame.recovery(Frame.Type.REPORT, x.mid, payload.readableBytes()).at(target),
                    payload, null);
        }
    }

    /** A survivor's REPORT for view {@code epoch} reached this worker. */
    void takeReport(int from, int epoch, ByteBuf payload) {
        if (epoch < target || epoch <= x.epoch) {
            payload.release();
            return;
        }
        ByteBuf before = reports.computeIfAbsent(epoch, e -> new HashMap<>()).put(from, payload);
        PeerExchange.release(before);
        Map<Integer, ByteBuf> got = reports.get(target);
        if (!frozen() || targetMids[0] != x.mid || got == null) {
            return;
        }
        for (int m : targetMids) {
            if (!got.containsKey(m)) {
                return;
            }
        }
        decide(got);
    }

    /** Every survivor reported: decides each key and sends every survivor the decision. */
    private void decide(Map<Integer, ByteBuf> got) {
        Map<String, int[]> lengths = new TreeMap<>();
        Map<String, ElasticRule.Report[]> byKey = new TreeMap<>();
        int latest = 0;
        boolean joiners = false;
        for (int r = 0; r < targetMids.length; r++) {
            ByteBuf b = got.get(targetMids[r]);
            int period = b.readInt();
            joiners |= period < 0;
            latest = Math.max(latest, period);
            int keys = b.readInt();
            for (int i = 0; i < keys; i++) {
                String key = readString(b);
                int length = b.readInt();
                lengths.putIfAbsent(key, new int[] {length});
                byKey.computeIfAbsent(key, k -> new ElasticRule.Report[targetMids.length])[r] = new ElasticRule.Report(
                        Integer.toString(r), b.readLong(), b.readLong(), b.readBoolean(), b.readLong());
            }
        }
        reports.remove(target).values().forEach(ByteBuf::release);
        ByteBuf out = Unpooled.buffer();
        // Joiners start in the period after every member's: no member has pushed a round of it yet, so each of its
        // rounds has every joiner's push, and none before it has any.
        out.writeInt(joiners ? latest + 1 : -1);
        out.writeInt(byKey.size());
        for (Map.Entry<String, ElasticRule.Report[]> e : byKey.entrySet()) {
            List<ElasticRule.Report> rs = new ArrayList<>();
            ElasticRule.Report[] given = e.getValue();
            for (int r = 0; r < given.length; r++) {
                // A survivor that never saw the key has neither its init nor a push of it.
                rs.add(given[r] != null ? given[r] : new ElasticRule.Report(Integer.toString(r), ElasticRule.NOT_STARTED,
                        ElasticRule.NOT_STARTED, false, 0));
            }
            ElasticRule.Decision d;
            try {
                d = ElasticRule.decide(e.getKey(), rs);
            } catch (IllegalArgumentException bad) {
                x.failAll("view " + target + " cannot carry key '" + e.getKey() + "' over: " + bad.getMessage());
                return;
            }
            writeString(out, e.getKey());
            out.writeInt(lengths.get(e.getKey())[0]).writeLong(d.agreed());
            for (ElasticRule.Step s : d.steps()) {
                out.writeByte(s.action().ordinal()).writeInt(s.from() == null ? -1 : Integer.parseInt(s.from()));
            }
        }
        for (int r = 1; r < targetMids.length; r++) {
            x.transport.send(targetMids[r], Frame.recovery(Frame.Type.DECISION, x.mid, out.readableBytes()).at(target),
                    out.retainedDuplicate(), null);
        }
        takeDecision(target, out);
    }

    /** The leader's DECISION for view {@code epoch} reached this worker: installs the view. */
    void takeDecision(int epoch, ByteBuf b) {
        try {
            if (epoch != target || !frozen()) {
                return; // of a view a later one replaced
            }
            int n = targetMids.length;
            int joinPeriod = b.readInt();
            List<KeyDecision> ds = new ArrayList<>();
            for (int keys = b.readInt(); keys > 0; keys--) {
                String key = readString(b);
                int length = b.readInt();
                long agreed = b.readLong();
                int[] actions = new int[n];
                int[] from = new int[n];
                for (int r = 0; r < n; r++) {
                    actions[r] = b.readByte();
                    from[r] = b.readInt();
                }
                ds.add(new KeyDecision(key, length, agreed, actions, from));
            }
            install(ds, joinPeriod);
        } finally {
            b.release();
        }
    }

    private void install(List<KeyDecision> ds, int joinPeriod) {
        int n = targetMids.length;
        if (x.joining) {
            x.joining = false; // admitted: it ended every period before its first (announced below)
            x.joinedAt = joinPeriod;
            x.myEnded = joinPeriod - 1;
        }
        int[] oldMids = x.mids;
        boolean[] oldBye = x.saidBye;
        x.epoch = target;
        x.mids = targetMids;
        x.rank = indexOf(targetMids, x.mid);
        x.workers = n;
        x.saidBye = new boolean[n];
        x.closedBy = new int[n];
        java.util.Arrays.fill(x.closedBy, -1);
        x.reducer = new Reducer(x, x.rank, n);
        for (int r = 0; r < n; r++) {
            int was = indexOf(oldMids, targetMids[r]);
            x.saidBye[r] = was >= 0 && oldBye[was];
        }
        Map<String, KeyDecision> byKey = new LinkedHashMap<>();
        for (KeyDecision d : ds) {
            byKey.put(d.key(), d);
            x.keyOf(d.key(), d.length());
        }
        Map<String, Long> agreedRounds = new TreeMap<>();
        for (PeerKey pk : x.keys.values()) {
            KeyDecision d = byKey.get(pk.layout.key());
            pk.changeView(new KeyLayout(pk.layout.key(), pk.layout.length(), n, x.splitFloats));
            // An init or a state of an earlier view not taken yet: the decision says what this copy gets now.
            PeerExchange.release(pk.init);
            pk.init = null;
            PeerExchange.release(pk.state);
            pk.state = null;
            ElasticRule.Action mine = d == null ? ElasticRule.Action.NONE : ElasticRule.Action.values()[d.actions()[x.rank]];
            // Behind: it applies nothing (and, as rank 0, gives no init of its own) until what it is sent arrives.
            pk.recovering = mine != ElasticRule.Action.NONE;
            // A key no survivor reported was made here after this worker froze (an init op): it has no round yet.
            long agreed = d == null ? ElasticRule.NOT_STARTED : d.agreed();
            if (d != null) {
                agreedRounds.put(pk.layout.key(), agreed);
            }
            if (d != null) {
                for (int t = 0; t < n; t++) {
                    if (d.from()[t] == x.rank) {
                        if (d.actions()[t] == ElasticRule.Action.FORWARD.ordinal()) {
                            x.out.forward(pk, t);
                        } else {
                            x.out.state(pk, t, agreed);
                        }
                    }
                }
            }
            if (agreed == ElasticRule.NOT_STARTED && x.rank == 0 && pk.key != null && !pk.applied.started()) {
                x.out.init(pk); // no survivor has the init: this worker's own value is the key's (elastic jobs init alike)
            }
            // Every push after the agreed round is this view's to sum: sent again in round order (the end of data after).
            java.util.TreeSet<Long> again = new java.util.TreeSet<>(pk.skips.tailSet(agreed, false));
            again.addAll(pk.open.tailMap(agreed, false).keySet());
            for (long r : again) {
                ByteBuf kept = pk.open.get(r);
                if (kept == null) {
                    x.out.skip(pk, r);
                } else {
                    x.out.parts(pk, r, null, kept);
                }
            }
        }
        if (x.myEnded >= 0) {
            x.out.toOthers(Frame.end(x.rank, x.myEnded));
            x.reducer.ended(x.rank, x.myEnded);
        }
        for (int r = 0; r < n; r++) {
            if (x.saidBye[r]) {
                x.closedBy[r] = Integer.MAX_VALUE;
                x.reducer.ended(r, Integer.MAX_VALUE);
            }
        }
        LOG.info("rank {}: view {} installed, {} workers, {} ms after this worker froze; keys' agreed rounds {}", x.rank,
                x.epoch, n, (System.nanoTime() - frozeAt) / 1_000_000, agreedRounds);
        ViewListener l = listener;
        if (l != null) {
            l.installed(x.epoch, x.rank, n, java.util.Collections.unmodifiableMap(agreedRounds), joinPeriod);
            holding = x.epoch; // until the store has told its listeners ({@link PeerExchange#released})
        }
        x.notifyAll(); // an elastic barrier waits across the change
        List<Held> now = new ArrayList<>();
        held.removeIf(h -> {
            boolean mine = h.frame().epoch() == x.epoch;
            if (mine) {
                now.add(h);
            }
            return mine;
        });
        for (Held h : now) {
            x.inbound().replay(h.from(), h.frame(), h.payload());
        }
    }

    /** A frame of a view this worker has not installed yet: kept until it does. */
    void hold(int from, Frame f, ByteBuf payload) {
        held.add(new Held(from, f, payload));
    }

    /** Frees what is held (at close). */
    void release() {
        held.forEach(h -> PeerExchange.release(h.payload()));
        held.clear();
        reports.values().forEach(m -> m.values().forEach(ByteBuf::release));
        reports.clear();
    }

    /**
     * This worker's state of every key, frozen: the REPORT's payload. First the period it is in (-1: it joins), the
     * latest of its store's first, the one after its last end of data, and those of its keys' rounds.
     */
    private ByteBuf state() {
        ByteBuf b = Unpooled.buffer();
        int period = Math.max(x.floorPeriod, x.myEnded + 1);
        for (PeerKey pk : x.keys.values()) {
            period = Math.max(period, org.depengine.kvstore.spi.Rounds.period(Math.max(pk.lastOpen(),
                    pk.applied.started() ? pk.applied.applied() : 0)));
        }
        b.writeInt(x.joining ? -1 : period);
        b.writeInt(x.keys.size());
        for (PeerKey pk : x.keys.values()) {
            boolean started = pk.applied.started();
            writeString(b, pk.layout.key());
            b.writeInt(pk.layout.length());
            b.writeLong(started ? pk.applied.applied() : ElasticRule.NOT_STARTED);
            b.writeLong(started ? pk.applied.previous() : ElasticRule.NOT_STARTED);
            b.writeBoolean(started && pk.kept != null && pk.applied.previous() >= 0);
            b.writeLong(pk.lastOpen());
        }
        return b;
    }

    private static void writeString(ByteBuf b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        b.writeInt(bytes.length).writeBytes(bytes);
    }

    private static String readString(ByteBuf b) {
        byte[] bytes = new byte[b.readInt()];
        b.readBytes(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
