package org.depengine.profiler;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Stream;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the life of every op of an engine (or only of ops pushed with {@code profiling = true}) and
 * turns it into a Chrome trace-event JSON file ({@link #dump}), aggregate statistics
 * ({@link #stats}), JFR events ({@link OpEvent}) and a self-contained HTML timeline
 * ({@link #writeHtml}).
 *
 * <h2>Use</h2>
 * <pre>{@code
 * Profiler p = Profiler.builder().mode(Profiler.Mode.ALL).build().start(engine);
 * ... push ops, engine.waitForAll() ...
 * p.stop();
 * p.dump(Path.of("trace.json"));     // open in https://ui.perfetto.dev or chrome://tracing
 * String table = p.stats().toTable(AggregateStats.Column.TOTAL, true); // per-op-name statistics
 * }</pre>
 *
 * <h2>Life cycle</h2>
 * {@code NEW --start--> RUNNING <--pause/resume--> PAUSED --stop--> STOPPED --start--> RUNNING}.
 * Only a RUNNING profiler records. {@link #start(Engine)} adds this profiler as a listener of the
 * engine; {@link #stop()} removes it. A profiler listens to one engine at a time (op ids are only
 * unique within an engine); starting it again on another engine first {@link #clear() clears} what
 * was recorded. What was recorded stays available after {@code stop()} for {@code dump},
 * {@code stats} and {@code writeHtml}.
 *
 * <h2>What is kept</h2>
 * Every thread that reports an event records it in its own ring of fixed capacity
 * ({@link Builder#ringCapacity}); no lock is taken and nothing is allocated per op. A full ring
 * overwrites its oldest records, so a long run keeps the latest window of each thread; overwritten
 * records are counted and reported by {@link #droppedRecords()}, in every dump and in a log line.
 * Ops some of whose records were lost (or that were still running, or that started or finished while
 * paused) are left out of the trace and of the statistics, and counted as incomplete. An op is in the
 * trace when its start and its finish were both recorded; its queue wait is shown when its ready
 * event was recorded too.
 *
 * <h2>Autostart</h2>
 * Engines call {@link #autostart(Engine)} once when they are created; it starts a profiler when the
 * system property {@value #AUTOSTART_PROPERTY} is {@code true}, configured from
 * {@link Builder#fromSystemProperties()}; see there for the properties.
 *
 * <h2>Thread-safety</h2>
 * All methods may be called from any thread. The listener methods never block and never throw. The
 * control methods ({@code start}, {@code stop}, {@code pause}, {@code resume}, {@code clear}) are
 * serialised with each other; {@code dump}, {@code writeHtml} and {@code stats} read a snapshot
 * while recording goes on, and never block the recording threads. Memory consistency effects: a
 * record made by an op's thread before {@code dump} (or {@code stats}) reads the ring holding it is
 * seen by that read; records made while it reads may or may not be.
 */
/*
 * Implementation overview
 *
 * Listener calls go to the calling thread's Ring (ThreadLocal, checked against the current Session so
 * clear() is one volatile write). READY, STARTED and LAUNCHED are one record each; FINISHED is a group
 * of FINISHED + INFO (name, priority, stream) + VARS records, so the static facts of an op are copied
 * once, from the OpInfo, while it is still valid; RELEASED is one record per dependency arrow. Names,
 * contexts and streams become small int ids through capped tables. Dumps snapshot every ring with the
 * seqlock rule (see Ring) and join the records by op id (TraceModel); nothing is joined while
 * recording. JFR: an op's durations are only known to the finishing thread through InFlight, which is
 * written only while the OpEvent type is enabled.
 */
public final class Profiler implements OpListener {
    private static final Logger LOG = LoggerFactory.getLogger(Profiler.class);

    /** {@code true} makes {@link #autostart(Engine)} start a profiler. */
    public static final String AUTOSTART_PROPERTY = "depengine.profiler.autostart";
    /** The trace file of an autostarted profiler; default {@value #DEFAULT_FILE}. */
    public static final String FILE_PROPERTY = "depengine.profiler.file";
    /** {@code all} (default) or {@code flagged}. */
    public static final String MODE_PROPERTY = "depengine.profiler.mode";
    /** A period in milliseconds at which the trace file is rewritten; 0 (default) for none. */
    public static final String DUMP_PERIOD_PROPERTY = "depengine.profiler.dumpPeriodMs";
    /** Records per thread ring; rounded up to a power of two; default {@value #DEFAULT_RING_CAPACITY}. */
    public static final String RING_CAPACITY_PROPERTY = "depengine.profiler.ringCapacity";
    /** The most threads that get a ring; default {@value #DEFAULT_MAX_THREADS}. */
    public static final String MAX_THREADS_PROPERTY = "depengine.profiler.maxThreads";
    /** An HTML timeline file written next to each final dump; none by default. */
    public static final String HTML_FILE_PROPERTY = "depengine.profiler.htmlFile";

    /** The default trace file of an autostarted profiler. */
    public static final String DEFAULT_FILE = "depengine-profile.json";
    /** The default ring capacity, in records (32 bytes each): 2 MiB per recording thread. */
    public static final int DEFAULT_RING_CAPACITY = 1 << 16;
    /** The default most recording threads: with the default capacity, at most 128 MiB of rings. */
    public static final int DEFAULT_MAX_THREADS = 64;

    private static final long WARN_INTERVAL_NANOS = 60_000_000_000L;
    private static final int MAX_OP_NAMES = 1 << 14;
    private static final int MAX_VAR_NAMES = 1 << 16;
    private static final FnPropertyValues PROPS = new FnPropertyValues();

    /** Which ops are recorded. */
    public enum Mode {
        /** Every op. */
        ALL,
        /** Only ops whose {@link OpInfo#profiling()} is true (pushed with {@code profiling = true}, and every pushSync/pushAsync). */
        FLAGGED
    }

    /** Where a profiler is in its life cycle. */
    public enum State {
        /** Built, never started. */
        NEW,
        /** Listening and recording. */
        RUNNING,
        /** Listening, not recording. */
        PAUSED,
        /** No longer listening; what was recorded can still be dumped. */
        STOPPED
    }

    private final Mode mode;
    private final int ringCapacity;
    private final int maxThreads;
    private final Path file;
    private final Path htmlFile;
    private final Duration dumpPeriod;
    private final int maxHtmlOps;
    private final boolean jfr;

    private final Object control = new Object();
    private final Object dumpLock = new Object();
    private final ThreadLocal<Ring> local = new ThreadLocal<>();
    private final InFlight inFlight = new InFlight(1 << 14);

    private volatile boolean recording;
    private volatile boolean autostarted; // set once by autostart: such a profiler ends with its engine
    private volatile Session session;
    private State state = State.NEW; // guarded by control
    private Engine engine; // guarded by control
    private Engine lastEngine; // guarded by control
    private ScheduledExecutorService dumper; // guarded by control
    private ScheduledFuture<?> periodic; // guarded by control
    private long lastWarnNanos; // guarded by dumpLock

    private Profiler(Builder b) {
        this.mode = b.mode;
        this.ringCapacity = b.ringCapacity;
        this.maxThreads = b.maxThreads;
        this.file = b.file;
        this.htmlFile = b.htmlFile;
        this.dumpPeriod = b.dumpPeriod;
        this.maxHtmlOps = b.maxHtmlOps;
        this.jfr = b.jfr;
        this.session = newSession();
    }

    /** A builder with the defaults (mode ALL, no file, no periodic dump). */
    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------------------------------
    // Autostart

    private static final List<Profiler> AUTOSTARTED = new ArrayList<>(); // guarded by itself
    private static final AtomicInteger AUTOSTART_COUNT = new AtomicInteger();
    private static final AtomicLong TEMP_COUNTER = new AtomicLong();
    private static boolean hookInstalled; // guarded by AUTOSTARTED

    /**
     * The hook engines call once, when an engine is created: when the system property
     * {@value #AUTOSTART_PROPERTY} is {@code true}, builds a profiler from
     * {@link Builder#fromSystemProperties()}, starts it on {@code engine} and returns it; otherwise
     * does nothing and returns an empty optional. The first autostarted profiler of the process
     * writes to {@value #FILE_PROPERTY} (default {@value #DEFAULT_FILE}); later ones (one per engine)
     * to the same name with {@code -2}, {@code -3}, ... before the extension. Each writes its file
     * periodically when {@value #DUMP_PERIOD_PROPERTY} is set, when it is stopped, and at JVM exit
     * (one shutdown hook stops every autostarted profiler still running). When its engine closes, an
     * autostarted profiler stops, writes its files a last time and is released
     * ({@link OpListener#closed()}). Never throws for a failure to write; an invalid property value
     * ({@value #AUTOSTART_PROPERTY} other than {@code true}/{@code false} included) is an
     * {@link IllegalArgumentException} naming it. Thread-safe.
     *
     * @throws NullPointerException if {@code engine} is null
     */
    public static Optional<Profiler> autostart(Engine engine) {
        Objects.requireNonNull(engine, "engine");
        String on = System.getProperty(AUTOSTART_PROPERTY, "false").strip();
        if (!on.equalsIgnoreCase("true") && !on.equalsIgnoreCase("false") && !on.isEmpty()) {
            throw new IllegalArgumentException("-D" + AUTOSTART_PROPERTY + "=" + on + " is not valid: use 'true' or 'false'");
        }
        if (!on.equalsIgnoreCase("true")) {
            return Optional.empty();
        }
        Builder b = Builder.fromSystemProperties();
        int n = AUTOSTART_COUNT.incrementAndGet();
        Path f = b.file != null ? b.file : Path.of(DEFAULT_FILE);
        b.file(n == 1 ? f : numbered(f, n));
        if (b.htmlFile != null && n > 1) {
            b.htmlFile(numbered(b.htmlFile, n));
        }
        Profiler p = b.build();
        p.autostarted = true;
        p.start(engine);
        synchronized (AUTOSTARTED) {
            AUTOSTARTED.add(p);
            if (!hookInstalled) {
                hookInstalled = true;
                Runtime.getRuntime().addShutdownHook(new Thread(Profiler::stopAutostarted, "depengine-profiler-exit"));
            }
        }
        LOG.info("profiler autostarted on engine '{}': mode {}, file {}", engine.name(), p.mode, p.file.toAbsolutePath());
        return Optional.of(p);
    }

    private static Path numbered(Path f, int n) {
        String name = f.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String numbered = dot > 0 ? name.substring(0, dot) + "-" + n + name.substring(dot) : name + "-" + n;
        return f.resolveSibling(numbered);
    }

    private static void stopAutostarted() {
        List<Profiler> all;
        synchronized (AUTOSTARTED) {
            all = new ArrayList<>(AUTOSTARTED);
            AUTOSTARTED.clear();
        }
        for (Profiler p : all) {
            p.stop();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Control

    /**
     * Adds this profiler as a listener of {@code engine} and starts recording; starts the periodic
     * dump when one is configured. Starting on an engine other than the last one clears what was
     * recorded first.
     *
     * @return this profiler
     * @throws NullPointerException if {@code engine} is null
     * @throws IllegalStateException if it is already running or paused
     */
    public Profiler start(Engine engine) {
        Objects.requireNonNull(engine, "engine");
        if (jfr) {
            // Initialise JFR's event type here, not inside the first op's event: that first-use cost
            // (~100 ms) would otherwise be recorded as the first op's queue wait.
            JfrSupport.enabled();
        }
        synchronized (control) {
            if (state == State.RUNNING || state == State.PAUSED) {
                throw new IllegalStateException("profiler already started on engine '" + this.engine.name()
                        + "'; stop() it first");
            }
            // Added first: if the engine refuses (closed), nothing here has changed. Events that come
            // before `recording` is set are ignored, like any event of a profiler that is not running.
            engine.addListener(this);
            if (lastEngine != null && lastEngine != engine) {
                clear();
            }
            this.engine = engine;
            this.lastEngine = engine;
            state = State.RUNNING;
            recording = true;
            if (file != null && !dumpPeriod.isZero()) {
                dumper = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "depengine-profiler-dump");
                    t.setDaemon(true);
                    return t;
                });
                long ms = Math.max(1, dumpPeriod.toMillis());
                periodic = dumper.scheduleWithFixedDelay(this::periodicDump, ms, ms, TimeUnit.MILLISECONDS);
            }
            LOG.debug("profiler started on engine '{}' (mode {})", engine.name(), mode);
        }
        return this;
    }

    /**
     * Stops recording and removes this profiler from its engine; stops the periodic dump; writes the
     * configured file (and HTML file) one last time. What was recorded stays available. Ops still
     * running are not in the trace. Does nothing unless running or paused. Never throws for a failed
     * write (it is logged).
     */
    public void stop() {
        java.util.concurrent.ExecutorService stoppedDumper = null;
        synchronized (control) {
            if (state != State.RUNNING && state != State.PAUSED) {
                return;
            }
            recording = false;
            state = State.STOPPED;
            try {
                engine.removeListener(this);
            } catch (RuntimeException e) {
                // a closed engine may refuse; it no longer reports anything, and recording is off anyway
                LOG.debug("profiler: removing the listener from engine '{}' failed", engine.name(), e);
            }
            engine = null;
            if (dumper != null) {
                periodic.cancel(false);
                dumper.shutdown();
                stoppedDumper = dumper;
                dumper = null;
                periodic = null;
            }
        }
        if (stoppedDumper != null) {
            // A periodic dump may be writing right now: let it finish (outside the lock), so that it
            // neither races the final dump below nor leaves its temporary file behind.
            try {
                if (!stoppedDumper.awaitTermination(10, TimeUnit.SECONDS)) {
                    LOG.warn("profiler: a periodic dump to {} is still running after 10 s", file);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (AUTOSTARTED) {
            AUTOSTARTED.remove(this);
        }
        if (file != null) {
            try {
                dump(file);
            } catch (IOException | RuntimeException e) {
                LOG.warn("profiler: could not write {}", file, e);
            }
        }
        if (htmlFile != null) {
            try {
                writeHtml(htmlFile);
            } catch (IOException | RuntimeException e) {
                LOG.warn("profiler: could not write {}", htmlFile, e);
            }
        }
        long dropped = droppedRecords();
        if (dropped > 0) {
            LOG.info("profiler stopped; {} records were dropped (ring capacity {} per thread)", dropped, ringCapacity);
        } else {
            LOG.debug("profiler stopped");
        }
    }

    /** Stops recording for now (events are ignored, not buffered); does nothing unless running. */
    public void pause() {
        synchronized (control) {
            if (state == State.RUNNING) {
                recording = false;
                state = State.PAUSED;
            }
        }
    }

    /** Records again after {@link #pause()}; does nothing unless paused. */
    public void resume() {
        synchronized (control) {
            if (state == State.PAUSED) {
                state = State.RUNNING;
                recording = true;
            }
        }
    }

    /**
     * Forgets everything recorded so far (rings, names, counts); recording goes on into new rings.
     * Threads move to the new rings at their next event; a record being written at that moment may
     * land in the old ring and be lost.
     */
    public void clear() {
        synchronized (control) {
            session = newSession();
        }
    }

    /** The current state. */
    public State state() {
        synchronized (control) {
            return state;
        }
    }

    /** Whether events are being recorded now (running, not paused). */
    public boolean isRecording() {
        return recording;
    }

    /** The recording mode. */
    public Mode mode() {
        return mode;
    }

    /**
     * Records lost so far: overwritten in full rings, held by rings evicted for new threads, or
     * reported by threads that got no ring ({@value #MAX_THREADS_PROPERTY}). Since the last clear.
     */
    public long droppedRecords() {
        Session s = session;
        long d = s.lostRecords.sum();
        for (Ring r : s.rings()) {
            d += r.dropped();
        }
        return d;
    }

    private Session newSession() {
        return new Session(ringCapacity, maxThreads, MAX_OP_NAMES, MAX_VAR_NAMES);
    }

    // ------------------------------------------------------------------------------------------
    // Outputs

    /**
     * Writes the Chrome trace-event JSON of what is recorded to {@code path}: to a temporary file in
     * the same directory, then moved into place atomically (where the file system can), so a reader
     * never sees a partial file. Logs a warning when records were dropped.
     *
     * @throws IOException if writing fails (the previous file, if any, is left as it was)
     */
    public void dump(Path path) throws IOException {
        Objects.requireNonNull(path, "path");
        TraceModel model = snapshot();
        writeAtomically(path, w -> TraceWriter.write(model, w));
        if (model.dropped > 0 && shouldWarn()) {
            LOG.warn("profiler dropped {} records (ring capacity {} per thread; raise -D{}); {} ops incomplete; wrote {}",
                    model.dropped, ringCapacity, RING_CAPACITY_PROPERTY, model.incomplete, path);
        } else {
            LOG.debug("profiler wrote {} ops to {}", model.ops.size(), path);
        }
    }

    /**
     * Writes a self-contained HTML timeline of what is recorded (no network access): a lane per device
     * context and stream, a bar per op, dependency arrows, the statistics table, and zoom. At most the
     * latest {@link Builder#maxHtmlOps} ops are drawn. Written atomically as {@link #dump}.
     *
     * @throws IOException if writing fails
     */
    public void writeHtml(Path path) throws IOException {
        Objects.requireNonNull(path, "path");
        TraceModel model = snapshot();
        writeAtomically(path, w -> HtmlWriter.write(model, maxHtmlOps, w));
    }

    /** Aggregate statistics per op name of what is recorded now (the ops a dump now would hold). */
    public AggregateStats stats() {
        return AggregateStats.of(snapshot());
    }

    /** Writes the trace of what is recorded now to {@code out} (not closed). */
    public void writeTrace(Writer out) throws IOException {
        TraceWriter.write(snapshot(), out);
    }

    private TraceModel snapshot() {
        Session s = session;
        return TraceModel.build(s, droppedRecords());
    }

    private interface Body {
        void write(Writer w) throws IOException;
    }

    private void writeAtomically(Path path, Body body) throws IOException {
        Path abs = path.toAbsolutePath();
        Path dir = abs.getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        synchronized (dumpLock) {
            // createTempFile would make the file owner-only (0600) and the move would keep that; a plain
            // CREATE_NEW file gets the usual permissions (umask), as a file written in place would.
            Path tmp = abs.resolveSibling("." + abs.getFileName() + "." + ProcessHandle.current().pid() + "."
                    + TEMP_COUNTER.incrementAndGet() + ".tmp");
            try {
                try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
                    body.write(w);
                }
                try {
                    Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /**
     * Whether this dump should log its drops as a warning: the first time, then at most once a minute,
     * so a periodic dump every few milliseconds does not flood the log.
     */
    private boolean shouldWarn() {
        long now = System.nanoTime();
        synchronized (dumpLock) {
            if (lastWarnNanos != 0 && now - lastWarnNanos < WARN_INTERVAL_NANOS) {
                return false;
            }
            lastWarnNanos = now;
            return true;
        }
    }

    private void periodicDump() {
        try {
            dump(file);
        } catch (IOException | RuntimeException e) {
            // keep the schedule alive: a transient failure (disk full) must not end periodic dumps
            LOG.warn("profiler: periodic dump to {} failed", file, e);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Listener

    private boolean accepts(OpInfo op) {
        return recording && (mode == Mode.ALL || op.profiling());
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

    /** Not recorded: the trace needs no push time. */
    @Override
    public void pushed(OpInfo op, long nanoTime) {
    }

    /** Records the ready time (the start of the queue wait). Never blocks, never throws. */
    @Override
    public void ready(OpInfo op, long nanoTime) {
        try {
            if (accepts(op)) {
                long id = op.id();
                one(Rec.READY, id, nanoTime);
                if (jfr && JfrSupport.enabled()) {
                    inFlight.set(id, InFlight.READY, nanoTime);
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("profiler: ready event ignored", e);
        }
    }

    /** Records the start on the calling thread (its lane in the trace). Never blocks, never throws. */
    @Override
    public void started(OpInfo op, long nanoTime) {
        try {
            if (accepts(op)) {
                long id = op.id();
                one(Rec.STARTED, id, nanoTime);
                if (jfr && JfrSupport.enabled()) {
                    inFlight.set(id, InFlight.STARTED, nanoTime);
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("profiler: started event ignored", e);
        }
    }

    /** Records the end of a device op's host part. Never blocks, never throws. */
    @Override
    public void launched(OpInfo op, long nanoTime) {
        try {
            if (accepts(op)) {
                long id = op.id();
                one(Rec.LAUNCHED, id, nanoTime);
                if (jfr && JfrSupport.enabled()) {
                    inFlight.set(id, InFlight.LAUNCHED, nanoTime);
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("profiler: launched event ignored", e);
        }
    }

    /**
     * Records the end and copies the op's static facts (name, property, priority, context, stream,
     * variables); commits an {@link OpEvent} when JFR records it. Never blocks, never throws.
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

    /** The engine closed: an autostarted profiler stops (final dump) and is released; one started by hand is left to its owner. */
    @Override
    public void closed() {
        if (autostarted) {
            stop();
        }
    }

    /** Records a dependency arrow when both ends are recorded. Never blocks, never throws. */
    @Override
    public void released(OpInfo producer, OpInfo consumer) {
        try {
            if (recording && (mode == Mode.ALL || (producer.profiling() && consumer.profiling()))) {
                one(Rec.RELEASED, producer.id(), consumer.id());
            }
        } catch (RuntimeException e) {
            LOG.debug("profiler: released event ignored", e);
        }
    }

    private void recordFinished(OpInfo op, long nanoTime) {
        Ring r = ring();
        Session s = r.session;
        List<VarHandle> reads = op.reads();
        List<VarHandle> writes = op.writes();
        int nr = reads == null ? 0 : reads.size();
        int nw = writes == null ? 0 : writes.size();
        int kr = Math.min(nr, Rec.MAX_VARS);
        int kw = Math.min(nw, Rec.MAX_VARS);
        if (r == s.refused) {
            s.lostRecords.add(2 + (kr + kw + Rec.VARS_PER_RECORD - 1) / Rec.VARS_PER_RECORD);
            return;
        }
        int ctxId = contextId(r, s, op.context());
        int streamId = streamId(r, s, op.stream());
        int nameId = s.opNames.id(String.valueOf(op.name()));
        int outcome = outcome(op.outcome());
        int prop = op.property() == null ? 0xFF : op.property().ordinal();
        long w1 = Rec.FINISHED | ((long) outcome << 8) | ((long) (prop & 0xFF) << 12)
                | (op.profiling() ? 1L << 20 : 0L) | ((long) ctxId << 32);
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
        r.publish();
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

    static int outcome(OpInfo.Outcome o) {
        if (o == null) {
            return Rec.OUTCOME_UNKNOWN;
        }
        switch (o) {
            case DONE:
                return Rec.OUTCOME_DONE;
            case FAILED:
                return Rec.OUTCOME_FAILED;
            case SKIPPED:
                return Rec.OUTCOME_SKIPPED;
            default:
                return Rec.OUTCOME_UNKNOWN;
        }
    }

    static String outcomeName(int o) {
        switch (o) {
            case Rec.OUTCOME_DONE:
                return "DONE";
            case Rec.OUTCOME_FAILED:
                return "FAILED";
            case Rec.OUTCOME_SKIPPED:
                return "SKIPPED";
            default:
                return "UNKNOWN";
        }
    }

    static String propertyName(int ordinal) {
        return PROPS.name(ordinal);
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
            StreamTable.Info info = session.streams.info(session.streams.id(st));
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

    /** FnProperty names by ordinal, looked up without touching the enum's values() array per call. */
    private static final class FnPropertyValues {
        private final String[] names;

        FnPropertyValues() {
            org.depengine.api.FnProperty[] v = org.depengine.api.FnProperty.values();
            names = new String[v.length];
            for (int i = 0; i < v.length; i++) {
                names[i] = v[i].name();
            }
        }

        String name(int ordinal) {
            return ordinal >= 0 && ordinal < names.length ? names[ordinal] : "UNKNOWN";
        }
    }

    // ------------------------------------------------------------------------------------------

    /**
     * Configures a {@link Profiler}. Not thread-safe; {@link #build()} may be called more than once.
     */
    public static final class Builder {
        private Mode mode = Mode.ALL;
        private int ringCapacity = DEFAULT_RING_CAPACITY;
        private int maxThreads = DEFAULT_MAX_THREADS;
        private Path file;
        private Path htmlFile;
        private Duration dumpPeriod = Duration.ZERO;
        private int maxHtmlOps = 20_000;
        private boolean jfr = true;

        private Builder() {
        }

        /**
         * A builder configured from system properties: {@value #MODE_PROPERTY} ({@code all} |
         * {@code flagged}), {@value #FILE_PROPERTY}, {@value #HTML_FILE_PROPERTY},
         * {@value #DUMP_PERIOD_PROPERTY} (ms, 0 = none), {@value #RING_CAPACITY_PROPERTY} and
         * {@value #MAX_THREADS_PROPERTY}; unset ones keep their defaults.
         *
         * @throws IllegalArgumentException naming the property whose value is invalid
         */
        public static Builder fromSystemProperties() {
            Builder b = new Builder();
            String m = prop(MODE_PROPERTY);
            if (m != null) {
                switch (m.toLowerCase(Locale.ROOT)) {
                    case "all":
                        b.mode(Mode.ALL);
                        break;
                    case "flagged":
                        b.mode(Mode.FLAGGED);
                        break;
                    default:
                        throw new IllegalArgumentException("-D" + MODE_PROPERTY + "=" + m + " is not valid: use 'all' or 'flagged'");
                }
            }
            String f = prop(FILE_PROPERTY);
            if (f != null) {
                b.file(Path.of(f));
            }
            String h = prop(HTML_FILE_PROPERTY);
            if (h != null) {
                b.htmlFile(Path.of(h));
            }
            long period = longProp(DUMP_PERIOD_PROPERTY, 0);
            if (period < 0) {
                throw new IllegalArgumentException("-D" + DUMP_PERIOD_PROPERTY + " must be >= 0, got " + period);
            }
            b.dumpPeriod(Duration.ofMillis(period));
            long cap = longProp(RING_CAPACITY_PROPERTY, DEFAULT_RING_CAPACITY);
            if (cap < 16 || cap > (1 << 26)) {
                throw new IllegalArgumentException("-D" + RING_CAPACITY_PROPERTY + " must be in [16, 67108864], got " + cap);
            }
            b.ringCapacity((int) cap);
            long threads = longProp(MAX_THREADS_PROPERTY, DEFAULT_MAX_THREADS);
            if (threads < 1 || threads > 65536) {
                throw new IllegalArgumentException("-D" + MAX_THREADS_PROPERTY + " must be in [1, 65536], got " + threads);
            }
            b.maxThreads((int) threads);
            return b;
        }

        private static String prop(String name) {
            String v = System.getProperty(name);
            return v == null || v.isBlank() ? null : v.strip();
        }

        private static long longProp(String name, long dflt) {
            String v = prop(name);
            if (v == null) {
                return dflt;
            }
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + name + "=" + v + " is not an integer", e);
            }
        }

        /** Which ops to record; default {@link Mode#ALL}. */
        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * Records per thread ring (32 bytes each), rounded up to a power of two; default
         * {@value Profiler#DEFAULT_RING_CAPACITY}. An op takes about 4 records plus one per 5
         * variables and one per dependency arrow, spread over the threads that saw it.
         *
         * @throws IllegalArgumentException if not in [16, 2^26]
         */
        public Builder ringCapacity(int records) {
            if (records < 16 || records > (1 << 26)) {
                throw new IllegalArgumentException("ring capacity must be in [16, 67108864], got " + records);
            }
            this.ringCapacity = Integer.highestOneBit(records - 1) << 1;
            return this;
        }

        /**
         * The most threads that get a ring; past it, a ring of a thread that has died is reused, else
         * the new thread's records are dropped (counted). Default {@value Profiler#DEFAULT_MAX_THREADS}.
         *
         * @throws IllegalArgumentException if not in [1, 65536]
         */
        public Builder maxThreads(int threads) {
            if (threads < 1 || threads > 65536) {
                throw new IllegalArgumentException("max threads must be in [1, 65536], got " + threads);
            }
            this.maxThreads = threads;
            return this;
        }

        /** The trace file written on {@link Profiler#stop()} and periodically; null (default) for none. */
        public Builder file(Path file) {
            this.file = file;
            return this;
        }

        /** An HTML timeline written on {@link Profiler#stop()}; null (default) for none. */
        public Builder htmlFile(Path file) {
            this.htmlFile = file;
            return this;
        }

        /**
         * The period at which {@link #file} is rewritten while running; zero (default) for none.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder dumpPeriod(Duration period) {
            Objects.requireNonNull(period, "period");
            if (period.isNegative()) {
                throw new IllegalArgumentException("dump period must be >= 0, got " + period);
            }
            this.dumpPeriod = period;
            return this;
        }

        /**
         * The most ops {@link Profiler#writeHtml} draws (the latest); default 20,000.
         *
         * @throws IllegalArgumentException if less than 1
         */
        public Builder maxHtmlOps(int ops) {
            if (ops < 1) {
                throw new IllegalArgumentException("max HTML ops must be >= 1, got " + ops);
            }
            this.maxHtmlOps = ops;
            return this;
        }

        /** Whether to commit {@link OpEvent}s while JFR records them; default true. */
        public Builder jfr(boolean enabled) {
            this.jfr = enabled;
            return this;
        }

        /** A new profiler in state {@link State#NEW}. */
        public Profiler build() {
            return new Profiler(this);
        }
    }
}
