package org.depengine.profiler;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * Aggregate statistics per op name over the ops a trace holds: count; total, min, max and average of
 * the run time (started to finished) and of the queue wait (ready to started); and, for device ops
 * (those with a launch), the host part (started to launched) and the device part (from where the
 * stream could start it to finished), exactly as the trace draws them; and the median (p50) and 99th
 * percentile (p99) of the run time, exact (nearest rank over the recorded durations, no histogram
 * approximation). Shown as a text table or JSON,
 * sorted by any {@link Column}.
 *
 * <p>The members of a bulk's merged op ({@link org.depengine.api.Engine#bulk(int)}) are counted under
 * their own names, with their run times (0 for a skipped member) and no queue wait, host or device
 * part; the merged op keeps its own row ({@code bulk[n]: first..last}) too, so its time is counted
 * twice when rows are summed. {@link #opCount()} counts the merged op as one op, not its members.
 *
 * <p>Immutable and thread-safe.
 */
public final class AggregateStats {
    /** A summary of durations in nanoseconds; all zero when {@code count} is 0. */
    public record Summary(long count, long totalNanos, long minNanos, long maxNanos) {
        static final Summary EMPTY = new Summary(0, 0, 0, 0);

        /** The mean in nanoseconds; 0 when empty. */
        public double avgNanos() {
            return count == 0 ? 0 : (double) totalNanos / count;
        }

        Summary plus(long nanos) {
            return count == 0 ? new Summary(1, nanos, nanos, nanos)
                    : new Summary(count + 1, totalNanos + nanos, Math.min(minNanos, nanos), Math.max(maxNanos, nanos));
        }
    }

    /**
     * One op name's statistics.
     *
     * @param name the op name
     * @param count how many ops of that name the trace holds
     * @param run their run times
     * @param queueWait their queue waits (over the ops whose ready time was recorded)
     * @param host the host parts of the device ops among them
     * @param device the device parts of the device ops among them
     * @param runP50Nanos the median run time (nearest rank)
     * @param runP99Nanos the 99th percentile of the run time (nearest rank)
     */
    public record Row(String name, long count, Summary run, Summary queueWait, Summary host, Summary device,
                      long runP50Nanos, long runP99Nanos) {
    }

    /** The columns, each sortable; time columns are shown in milliseconds. */
    public enum Column {
        /** Op name. */
        NAME("Name", null),
        /** Ops. */
        COUNT("Count", r -> r.count()),
        /** Total run time. */
        TOTAL("Total(ms)", r -> r.run().totalNanos()),
        /** Shortest run time. */
        MIN("Min(ms)", r -> r.run().minNanos()),
        /** Longest run time. */
        MAX("Max(ms)", r -> r.run().maxNanos()),
        /** Mean run time. */
        AVG("Avg(ms)", r -> r.run().avgNanos()),
        /** Median run time. */
        P50("P50(ms)", r -> r.runP50Nanos()),
        /** 99th percentile of the run time. */
        P99("P99(ms)", r -> r.runP99Nanos()),
        /** Total queue wait. */
        WAIT_TOTAL("WaitTotal(ms)", r -> r.queueWait().totalNanos()),
        /** Shortest queue wait. */
        WAIT_MIN("WaitMin(ms)", r -> r.queueWait().minNanos()),
        /** Longest queue wait. */
        WAIT_MAX("WaitMax(ms)", r -> r.queueWait().maxNanos()),
        /** Mean queue wait. */
        WAIT_AVG("WaitAvg(ms)", r -> r.queueWait().avgNanos()),
        /** Device ops. */
        DEVICE_OPS("DevOps", r -> r.device().count()),
        /** Total host part of device ops. */
        HOST_TOTAL("HostTotal(ms)", r -> r.host().totalNanos()),
        /** Mean host part of device ops. */
        HOST_AVG("HostAvg(ms)", r -> r.host().avgNanos()),
        /** Total device part of device ops. */
        DEVICE_TOTAL("DevTotal(ms)", r -> r.device().totalNanos()),
        /** Mean device part of device ops. */
        DEVICE_AVG("DevAvg(ms)", r -> r.device().avgNanos());

        private final String header;
        private final ToDoubleFunction<Row> value;

        Column(String header, ToDoubleFunction<Row> value) {
            this.header = header;
            this.value = value;
        }

        /** The column's header in the text table. */
        public String header() {
            return header;
        }

        /** Orders rows by this column, ascending; ties by name. */
        public Comparator<Row> comparator() {
            Comparator<Row> byName = Comparator.comparing(Row::name);
            return value == null ? byName : Comparator.comparingDouble(value).thenComparing(byName);
        }

        boolean isTime() {
            return this != NAME && this != COUNT && this != DEVICE_OPS;
        }
    }

    private final List<Row> rows;
    private final long ops;
    private final long dropped;
    private final long incomplete;

    private AggregateStats(List<Row> rows, long ops, long dropped, long incomplete) {
        this.rows = Collections.unmodifiableList(rows);
        this.ops = ops;
        this.dropped = dropped;
        this.incomplete = incomplete;
    }

    static AggregateStats of(TraceModel m) {
        Map<String, Row> byName = new TreeMap<>();
        Map<String, long[]> runs = new HashMap<>();
        for (TraceModel.Op o : m.ops) {
            Row r = row(byName, o.name);
            Summary wait = o.ready >= 0 ? r.queueWait().plus(o.queueWait()) : r.queueWait();
            Summary host = o.isDevice() ? r.host().plus(o.hostTime()) : r.host();
            Summary dev = o.isDevice() ? r.device().plus(o.deviceTime()) : r.device();
            add(byName, runs, new Row(o.name, r.count() + 1, r.run().plus(o.runTime()), wait, host, dev, 0, 0), o.runTime());
            for (TraceModel.Member mb : o.members) {
                // a bulk member has no queue wait of its own and no device part: only its run time
                Row mr = row(byName, mb.name());
                add(byName, runs, new Row(mb.name(), mr.count() + 1, mr.run().plus(mb.duration()), mr.queueWait(),
                        mr.host(), mr.device(), 0, 0), mb.duration());
            }
        }
        List<Row> rows = new ArrayList<>(byName.size());
        for (Row r : byName.values()) {
            long[] d = Arrays.copyOf(runs.get(r.name()), (int) r.count());
            Arrays.sort(d);
            rows.add(new Row(r.name(), r.count(), r.run(), r.queueWait(), r.host(), r.device(),
                    percentile(d, 50), percentile(d, 99)));
        }
        return new AggregateStats(rows, m.ops.size(), m.dropped, m.incomplete);
    }

    private static Row row(Map<String, Row> byName, String name) {
        return byName.getOrDefault(name, new Row(name, 0, Summary.EMPTY, Summary.EMPTY, Summary.EMPTY, Summary.EMPTY, 0, 0));
    }

    /** Stores {@code updated} (one more run than before) and its run time for the percentiles. */
    private static void add(Map<String, Row> byName, Map<String, long[]> runs, Row updated, long runTime) {
        byName.put(updated.name(), updated);
        long[] d = runs.computeIfAbsent(updated.name(), k -> new long[8]);
        int n = (int) updated.count() - 1;
        if (n == d.length) {
            d = Arrays.copyOf(d, n * 2);
            runs.put(updated.name(), d);
        }
        d[n] = runTime;
    }

    /** The nearest-rank percentile of sorted, non-empty values: the smallest value with p% at or below it. */
    static long percentile(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    /** The rows, by name. */
    public List<Row> rows() {
        return rows;
    }

    /** The rows sorted by {@code column}. */
    public List<Row> rows(Column column, boolean descending) {
        Objects.requireNonNull(column, "column");
        List<Row> sorted = new ArrayList<>(rows);
        Comparator<Row> c = column.comparator();
        sorted.sort(descending ? c.reversed() : c);
        return sorted;
    }

    /** The row of an op name, if any op of that name is in the trace. */
    public Optional<Row> row(String name) {
        return rows.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    /** Ops counted. */
    public long opCount() {
        return ops;
    }

    /** Records the profiler had dropped when these statistics were taken. */
    public long droppedRecords() {
        return dropped;
    }

    /** Ops left out because records of them were missing (dropped, paused, still running). */
    public long incompleteOps() {
        return incomplete;
    }

    /** A fixed-width text table sorted by {@code column}, times in milliseconds. */
    public String toTable(Column column, boolean descending) {
        List<Row> sorted = rows(column, descending);
        Column[] cols = Column.values();
        List<String[]> cells = new ArrayList<>();
        String[] head = new String[cols.length];
        for (int i = 0; i < cols.length; i++) {
            head[i] = cols[i].header() + (cols[i] == column ? (descending ? " v" : " ^") : "");
        }
        cells.add(head);
        for (Row r : sorted) {
            String[] line = new String[cols.length];
            for (int i = 0; i < cols.length; i++) {
                line[i] = text(cols[i], r);
            }
            cells.add(line);
        }
        int[] width = new int[cols.length];
        for (String[] line : cells) {
            for (int i = 0; i < cols.length; i++) {
                width[i] = Math.max(width[i], line[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] line : cells) {
            for (int i = 0; i < cols.length; i++) {
                if (i == 0) {
                    sb.append(String.format(Locale.ROOT, "%-" + width[i] + "s", line[i]));
                } else {
                    sb.append("  ").append(String.format(Locale.ROOT, "%" + width[i] + "s", line[i]));
                }
            }
            sb.append('\n');
        }
        sb.append(String.format(Locale.ROOT, "%d ops, %d incomplete, %d records dropped%n", ops, incomplete, dropped));
        return sb.toString();
    }

    private static String text(Column c, Row r) {
        if (c == Column.NAME) {
            return r.name();
        }
        double v = c.value.applyAsDouble(r);
        if (!c.isTime()) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.3f", v / 1e6);
    }

    /**
     * The statistics as JSON: {@code {"sortedBy":..., "descending":..., "ops":..., "droppedRecords":...,
     * "incompleteOps":..., "rows":[{"name":..., "count":..., "p50Ns":..., "p99Ns":..., "run":{"count","totalNs","minNs","maxNs",
     * "totalMs","minMs","maxMs","avgMs"}, "wait":{...}, "host":{...}, "device":{...}}, ...]}}, rows sorted by {@code column}.
     */
    public String toJson(Column column, boolean descending) {
        StringWriter sw = new StringWriter();
        try {
            JsonWriter j = new JsonWriter(sw, false);
            j.beginObject();
            j.field("sortedBy", column.name());
            j.name("descending").value(descending);
            j.field("ops", ops).field("droppedRecords", dropped).field("incompleteOps", incomplete);
            j.name("rows").beginArray();
            for (Row r : rows(column, descending)) {
                j.beginObject().field("name", r.name()).field("count", r.count());
                j.field("p50Ns", r.runP50Nanos()).field("p99Ns", r.runP99Nanos());
                summary(j, "run", r.run());
                summary(j, "wait", r.queueWait());
                summary(j, "host", r.host());
                summary(j, "device", r.device());
                j.endObject();
            }
            j.endArray().endObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return sw.toString();
    }

    static void summary(JsonWriter j, String name, Summary s) throws IOException {
        j.name(name).beginObject().field("count", s.count());
        j.field("totalNs", s.totalNanos()).field("minNs", s.minNanos()).field("maxNs", s.maxNanos());
        j.name("totalMs").thousandths(s.totalNanos() / 1000);
        j.name("minMs").thousandths(s.minNanos() / 1000);
        j.name("maxMs").thousandths(s.maxNanos() / 1000);
        j.name("avgMs").value(s.avgNanos() / 1e6);
        j.endObject();
    }

    @Override
    public String toString() {
        return toTable(Column.TOTAL, true);
    }
}
