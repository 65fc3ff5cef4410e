package org.depengine.examples;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.device.Stream;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;

/**
 * Measures when a device's lanes were busy, from the engine's op events. An op on an asynchronous
 * device (one that reports a launch) occupies its stream from when it could start there (its start,
 * or the end of the stream's previous op, whichever is later: an in-order queue runs one op at a
 * time) to when it is done; an op on a synchronous lane (the CPU) from its start to its finish. Ops
 * are grouped into lanes by name. Thread-safe, as a listener must be.
 */
final class LaneRecorder implements OpListener {
    private static final class Times {
        final String lane;
        final Stream stream;
        final long started;
        volatile boolean launched;
        volatile long finished;

        Times(String lane, Stream stream, long started) {
            this.lane = lane;
            this.stream = stream;
            this.started = started;
        }
    }

    /** Busy time per lane and over all lanes, in nanoseconds. */
    record Busy(Map<String, Long> perLane, long sum, long max, long anyLane) {
        /** How much of what overlapping could save was saved: 0 = lanes ran one at a time, 1 = all hidden behind the longest. */
        double overlap() {
            long possible = sum - max;
            return possible <= 0 ? 0 : (double) (sum - anyLane) / possible;
        }
    }

    private final Set<String> lanes;
    private final ConcurrentHashMap<Long, Times> ops = new ConcurrentHashMap<>();

    /** Records the ops whose name is one of {@code lanes}. */
    LaneRecorder(Set<String> lanes) {
        this.lanes = lanes;
    }

    @Override
    public void started(OpInfo op, long nanoTime) {
        if (lanes.contains(op.name())) {
            ops.put(op.id(), new Times(op.name(), op.stream(), nanoTime));
        }
    }

    @Override
    public void launched(OpInfo op, long nanoTime) {
        Times t = ops.get(op.id());
        if (t != null) {
            t.launched = true;
        }
    }

    @Override
    public void finished(OpInfo op, long nanoTime) {
        Times t = ops.get(op.id());
        if (t != null) {
            t.finished = nanoTime;
        }
    }

    /** The busy times of what was recorded; call once the ops are done. */
    Busy busy() {
        Map<Object, List<Times>> byStream = new HashMap<>();
        for (Times t : ops.values()) {
            // Synchronous ops may share a stream object while running on several threads: not queued.
            byStream.computeIfAbsent(t.launched && t.stream != null ? t.stream : t, k -> new ArrayList<>()).add(t);
        }
        Map<String, List<long[]>> intervals = new HashMap<>();
        List<long[]> all = new ArrayList<>();
        for (List<Times> onStream : byStream.values()) {
            onStream.sort(Comparator.comparingLong(t -> t.started));
            long previousEnd = Long.MIN_VALUE;
            for (Times t : onStream) {
                long[] iv = {Math.max(t.started, previousEnd), t.finished};
                previousEnd = t.finished;
                intervals.computeIfAbsent(t.lane, k -> new ArrayList<>()).add(iv);
                all.add(iv);
            }
        }
        Map<String, Long> perLane = new HashMap<>();
        long sum = 0;
        long max = 0;
        for (Map.Entry<String, List<long[]>> e : intervals.entrySet()) {
            long b = unionLength(e.getValue());
            perLane.put(e.getKey(), b);
            sum += b;
            max = Math.max(max, b);
        }
        return new Busy(perLane, sum, max, unionLength(all));
    }

    private static long unionLength(List<long[]> intervals) {
        List<long[]> sorted = new ArrayList<>(intervals);
        sorted.sort(Comparator.comparingLong(iv -> iv[0]));
        long total = 0;
        long from = Long.MIN_VALUE;
        long to = Long.MIN_VALUE;
        for (long[] iv : sorted) {
            if (iv[0] > to) {
                total += to - from;
                from = iv[0];
                to = iv[1];
            } else {
                to = Math.max(to, iv[1]);
            }
        }
        return total + (to - from);
    }
}
