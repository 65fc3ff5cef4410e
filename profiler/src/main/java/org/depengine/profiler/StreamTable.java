package org.depengine.profiler;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.depengine.api.Context;
import org.depengine.api.device.Stream;

/**
 * Gives each stream seen an id, by identity (streams are few and long-lived; every worker caches its
 * own, so this lock is taken about once per stream). Not part of the API.
 */
final class StreamTable {
    /** What the trace needs of a stream, copied once. */
    record Info(int id, String kind, Context context, int ordinal) {
    }

    private final Map<Stream, Integer> ids = new IdentityHashMap<>(); // guarded by this
    private final List<Info> infos = new ArrayList<>(); // guarded by this
    private final Map<Context, Integer> perContext = new java.util.HashMap<>(); // guarded by this
    private final int cap;

    StreamTable(int cap) {
        this.cap = cap;
    }

    /** The stream's id (≥ 1), or 0 when the table is full. */
    synchronized int id(Stream s) {
        Integer id = ids.get(s);
        if (id != null) {
            return id;
        }
        if (infos.size() >= cap) {
            return 0;
        }
        String kind;
        Context ctx;
        try {
            kind = String.valueOf(s.kind());
            ctx = s.device() != null ? s.device().context() : null;
        } catch (RuntimeException e) {
            // a stream of a broken device: still give it a lane
            kind = "stream";
            ctx = null;
        }
        int ordinal = perContext.merge(ctx == null ? Context.cpu() : ctx, 1, Integer::sum) - 1;
        int next = infos.size() + 1;
        infos.add(new Info(next, kind, ctx, ordinal));
        ids.put(s, next);
        return next;
    }

    synchronized Info info(int id) {
        return id >= 1 && id <= infos.size() ? infos.get(id - 1) : null;
    }
}
