package org.depengine.profiler;

import java.io.IOException;
import java.io.Writer;
import java.util.Map;
import java.util.Set;

/**
 * Writes a {@link TraceModel} as Chrome trace-event JSON (the "JSON Object Format" that Perfetto and
 * {@code chrome://tracing} open). Not part of the API.
 */
/*
 * Layout: one process per device context (pid = the context's id, named with process_name metadata),
 * one thread per recording thread (tid = ring index + 1) and per stream (tid = STREAM_TID_BASE +
 * stream id), named with thread_name metadata. Each op is a complete event (ph X) on the thread that
 * ran it; the members of a bulk's merged op are complete events (cat "op,member", args index, outcome,
 * bulk, bulk_id) on the same thread within the merged op's time, so viewers nest them under it; a
 * device op (launched != finished) has a second one, cat "device", on its stream's lane from where the
 * stream could start it to where it was done. Each dependency arrow is a flow: ph "s" inside
 * the producer's last slice, ph "f" with bp "e" at the consumer's start, with a shared id. Times are
 * microseconds from the earliest recorded time, with nanosecond decimals. An op's own arguments
 * (OpBuilder.arg) are fields of the host event's args next to the profiler's; one whose key the
 * profiler uses itself is written as "arg_" + key.
 */
final class TraceWriter {
    /** The keys of an op event's args that the profiler writes itself. */
    private static final Set<String> OWN_KEYS = Set.of("op", "id", "property", "priority", "outcome", "profiling",
            "reads", "writes", "queue_wait_us", "run_us", "host_us", "device_us", "stream");

    private TraceWriter() {
    }

    static void write(TraceModel m, Writer out) throws IOException {
        JsonWriter j = new JsonWriter(out, false);
        j.beginObject();
        j.name("traceEvents").beginArray();
        int sort = 0;
        for (Map.Entry<Integer, String> p : m.processes.entrySet()) {
            meta(j, "process_name", p.getKey(), 0, "name", p.getValue());
            j.beginObject().field("name", "process_sort_index").field("ph", "M").field("pid", p.getKey()).field("tid", 0)
                    .name("args").beginObject().field("sort_index", sort++).endObject().endObject();
        }
        for (TraceModel.Lane l : m.lanes) {
            meta(j, "thread_name", l.pid(), l.tid(), "name", l.name());
            j.beginObject().field("name", "thread_sort_index").field("ph", "M").field("pid", l.pid()).field("tid", l.tid())
                    .name("args").beginObject().field("sort_index", l.tid()).endObject().endObject();
        }
        for (TraceModel.Op o : m.ops) {
            j.beginObject();
            j.field("name", o.name).field("cat", o.isDevice() ? "op,host" : "op").field("ph", "X");
            j.name("ts").thousandths(o.started - m.origin);
            j.name("dur").thousandths(o.hostTime());
            j.field("pid", o.pid).field("tid", o.hostTid);
            j.name("args").beginObject();
            j.field("op", o.name).field("id", o.id).field("property", Rec.propertyName(o.property))
                    .field("priority", o.priority).field("outcome", Rec.outcomeName(o.outcome));
            j.name("profiling").value(o.profiling);
            j.name("reads");
            names(j, o.reads, o.totalReads);
            j.name("writes");
            names(j, o.writes, o.totalWrites);
            if (o.ready >= 0) {
                j.name("queue_wait_us").thousandths(o.queueWait());
            }
            j.name("run_us").thousandths(o.runTime());
            if (o.isDevice()) {
                j.name("host_us").thousandths(o.hostTime());
                j.name("device_us").thousandths(o.deviceTime());
            }
            if (o.streamName != null) {
                j.field("stream", o.streamName);
            }
            for (Map.Entry<String, Object> a : o.args.entrySet()) {
                j.name(OWN_KEYS.contains(a.getKey()) ? "arg_" + a.getKey() : a.getKey());
                argValue(j, a.getValue());
            }
            j.endObject();
            j.endObject();
            members(j, m, o);
            if (o.isDevice()) {
                j.beginObject();
                j.field("name", o.name).field("cat", "op,device").field("ph", "X");
                j.name("ts").thousandths(o.deviceStart - m.origin);
                j.name("dur").thousandths(o.deviceTime());
                j.field("pid", o.devicePid).field("tid", o.deviceTid);
                j.name("args").beginObject().field("op", o.name).field("id", o.id);
                j.name("launched_us").thousandths(o.launched - m.origin);
                j.name("device_us").thousandths(o.deviceTime());
                j.endObject();
                j.endObject();
            }
        }
        for (TraceModel.Flow f : m.flows) {
            TraceModel.Op from = f.from();
            TraceModel.Op to = f.to();
            boolean dev = from.isDevice();
            long start = dev ? from.deviceStart : from.started;
            // inside the producer's last slice, so the arrow binds to it and not to the next one
            long ts = Math.max(start, from.finished - 1);
            j.beginObject().field("name", "dep").field("cat", "dep").field("ph", "s").field("id", f.id());
            j.name("ts").thousandths(ts - m.origin);
            j.field("pid", dev ? from.devicePid : from.pid).field("tid", dev ? from.deviceTid : from.hostTid).endObject();
            j.beginObject().field("name", "dep").field("cat", "dep").field("ph", "f").field("bp", "e").field("id", f.id());
            j.name("ts").thousandths(to.started - m.origin);
            j.field("pid", to.pid).field("tid", to.hostTid).endObject();
        }
        j.endArray();
        j.field("displayTimeUnit", "ms");
        j.name("otherData").beginObject();
        j.field("producer", "depengine profiler");
        j.field("ops", m.ops.size());
        j.field("flows", m.flows.size());
        j.field("droppedRecords", m.dropped);
        j.field("incompleteOps", m.incomplete);
        j.name("namesOverflowed").value(m.namesOverflowed);
        j.field("originNanoTime", m.origin);
        j.endObject();
        j.endObject();
        out.flush();
    }

    /**
     * A merged op's members: complete events on its lane, each within its time, which Perfetto and
     * chrome://tracing nest under it (written right after it, so a viewer that needs the parent first
     * at equal times has it).
     */
    private static void members(JsonWriter j, TraceModel m, TraceModel.Op o) throws IOException {
        for (TraceModel.Member mb : o.members) {
            j.beginObject();
            j.field("name", mb.name()).field("cat", "op,member").field("ph", "X");
            j.name("ts").thousandths(mb.start() - m.origin);
            j.name("dur").thousandths(mb.duration());
            j.field("pid", o.pid).field("tid", o.hostTid);
            j.name("args").beginObject();
            j.field("op", mb.name()).field("index", mb.index()).field("outcome", Rec.outcomeName(mb.outcome()));
            j.field("bulk", o.name).field("bulk_id", o.id);
            j.endObject();
            j.endObject();
        }
    }

    private static void meta(JsonWriter j, String name, int pid, int tid, String key, String value) throws IOException {
        j.beginObject().field("name", name).field("ph", "M").field("pid", pid).field("tid", tid)
                .name("args").beginObject().field(key, value).endObject().endObject();
    }

    /** An argument's value as a JSON number, boolean or string. */
    static void argValue(JsonWriter j, Object v) throws IOException {
        if (v instanceof Long) {
            j.value((long) (Long) v);
        } else if (v instanceof Double) {
            j.value((double) (Double) v);
        } else if (v instanceof Boolean) {
            j.value((boolean) (Boolean) v);
        } else {
            j.value(String.valueOf(v));
        }
    }

    static void names(JsonWriter j, String[] names, int total) throws IOException {
        j.beginArray();
        for (String n : names) {
            j.value(n);
        }
        if (total > names.length) {
            j.value("... " + (total - names.length) + " more");
        }
        j.endArray();
    }
}
