package org.depengine.profiler;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.depengine.api.Engine;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the life of every op of an engine (or only of ops pushed with {@code profiling = true}) and
 * turns it into a Chrome trace-event JSON file ({@link #dump}), aggregate statistics
 * ({@link #stats}), JFR events ({@link OpEvent}) and a self-contained HTML timeline
 * ({@link #writeHtml}). Ops pushed with arguments ({@link org.depengine.api.OpBuilder#arg(String, long)})
 * show them in the trace and the timeline; the statistics group ops by name only. The members of a
 * bulk's merged op ({@link org.depengine.api.Engine#bulk(int)}, reported through
 * {@link OpListener#memberFinished}) are drawn as slices nested inside the merged op's bar, in the
 * trace and the timeline, are rows of their own in the statistics, and are {@link BulkMemberEvent}s
 * for JFR.
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
 * One {@link State} word, changed only by these named transitions:
 * <pre>
 * NEW     --start(engine)--&gt; RUNNING
 * RUNNING --pause()-------&gt; PAUSED  --resume()--&gt; RUNNING
 * RUNNING, PAUSED --stop()-----------&gt; STOPPED
 * RUNNING, PAUSED --engine closed----&gt; STOPPED
 * STOPPED --start(engine)--&gt; RUNNING   (clears what was recorded if the engine is another one)
 * </pre>
 * Any other call leaves the state as it is: {@code pause}, {@code resume} and {@code stop} do nothing
 * where their transition does not start, {@code start} throws when running or paused. Only a RUNNING
 * profiler records. {@code start} adds the profiler's listener to the engine; {@code stop} removes it,
 * stops the periodic dump and writes the configured files one last time. "Engine closed" is the
 * engine telling its listeners it closed ({@link OpListener#closed()}, after its last op): the
 * profiler stops exactly as {@code stop} does, so its final files are written when the engine closes,
 * whoever started it. A profiler listens to one engine at a time (op ids are only unique within an
 * engine). What was recorded stays available after it stops, for {@code dump}, {@code stats} and
 * {@code writeHtml}.
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
 * With the profiler on the class or module path, {@code EngineRegistry} calls {@link #autostart(Engine)}
 * for every engine it creates, through the {@link AutostartHook} engine-creation hook; it starts a
 * profiler when the system property {@value #AUTOSTART_PROPERTY} is {@code true}, configured from
 * {@link Builder#fromSystemProperties()}; see there for the properties.
 *
 * <h2>Thread-safety</h2>
 * All methods may be called from any thread. The listener never blocks and never throws. The
 * transitions are serialised with each other; {@code dump}, {@code writeHtml} and {@code stats} read a
 * snapshot while recording goes on, and never block the recording threads. Memory consistency
 * effects: a record made by an op's thread before {@code dump} (or {@code stats}) reads the ring
 * holding it is seen by that read; records made while it reads may or may not be.
 */
/*
 * This class is the control (state machine, periodic dump, outputs). Recorder is the listener writing
 * the rings (Session, Ring, Interner); TraceModel joins a snapshot into ops for TraceWriter, HtmlWriter
 * and AggregateStats; TraceFiles writes files atomically; Settings holds the configuration and reads the
 * system properties; Autostart is the process-wide registry of autostarted profilers.
 */
public final class Profiler {
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

    /** Which ops are recorded. */
    public enum Mode {
        /** Every op. */
        ALL,
        /** Only ops whose {@link OpInfo#profiling()} is true (pushed with {@code profiling = true}, and every pushSync/pushAsync). */
        FLAGGED
    }

    /** Where a profiler is in its life cycle; see the class overview for the transitions. */
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

    private final Settings settings;
    private final Recorder recorder;
    private final TraceFiles files = new TraceFiles();
    private final Object control = new Object();

    private volatile State state = State.NEW; // the one state word; written only under control
    private Engine engine; // guarded by control; non-null while RUNNING or PAUSED
    private Engine lastEngine; // guarded by control
    private PeriodicDump dumper; // guarded by control; non-null while a periodic dump is scheduled

    private Profiler(Settings settings) {
        this.settings = settings;
        this.recorder = new Recorder(this, settings);
    }

    /** A builder with the defaults (mode ALL, no file, no periodic dump). */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a profiler on {@code engine} when the system property {@value #AUTOSTART_PROPERTY} is
     * {@code true}: built from {@link Builder#fromSystemProperties()}, started, and returned; otherwise
     * does nothing and returns an empty optional. {@code EngineRegistry} calls it for every engine it
     * creates, through {@link AutostartHook}. The first one writes to {@value #FILE_PROPERTY} (default
     * {@value #DEFAULT_FILE}), later ones (one per engine) to that name with {@code -2}, {@code -3}, ...
     * before the extension: periodically when {@value #DUMP_PERIOD_PROPERTY} is set, when it stops (as
     * its engine closes) and at JVM exit (a shutdown hook stops those still running); a stopped one is
     * released. Never throws for a failure to write; an invalid property value (autostart other than
     * {@code true}/{@code false} included) is an {@link IllegalArgumentException} naming it. Thread-safe.
     *
     * @throws NullPointerException if {@code engine} is null
     */
    public static Optional<Profiler> autostart(Engine engine) {
        Objects.requireNonNull(engine, "engine");
        return Autostart.start(engine);
    }

    /**
     * The {@code start} transition: adds this profiler's listener to {@code engine} and starts
     * recording; starts the periodic dump when one is configured. Starting on an engine other than
     * the last one clears what was recorded first.
     *
     * @return this profiler
     * @throws NullPointerException if {@code engine} is null
     * @throws IllegalStateException if it is already running or paused, or the engine refuses listeners (closed)
     */
    public Profiler start(Engine engine) {
        Objects.requireNonNull(engine, "engine");
        if (settings.jfr()) {
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
            // before the state is RUNNING are ignored, like any event of a profiler that is not running.
            engine.addListener(recorder);
            if (lastEngine != null && lastEngine != engine) {
                recorder.clear();
            }
            this.engine = engine;
            this.lastEngine = engine;
            state = State.RUNNING;
            if (settings.periodic()) {
                dumper = new PeriodicDump(this::dump, settings);
            }
            LOG.debug("profiler started on engine '{}' (mode {})", engine.name(), settings.mode());
        }
        return this;
    }

    /**
     * The {@code stop} transition: stops recording and removes this profiler's listener from its
     * engine; stops the periodic dump; writes the configured file (and HTML file) one last time. What
     * was recorded stays available. Ops still running are not in the trace. Does nothing unless
     * running or paused. Never throws for a failed write (it is logged).
     */
    public void stop() {
        PeriodicDump stoppedDumper;
        synchronized (control) {
            if (state != State.RUNNING && state != State.PAUSED) {
                return;
            }
            state = State.STOPPED;
            try {
                engine.removeListener(recorder);
            } catch (RuntimeException e) {
                // a closed engine may refuse; it no longer reports anything, and recording is off anyway
                LOG.debug("profiler: removing the listener from engine '{}' failed", engine.name(), e);
            }
            engine = null;
            stoppedDumper = dumper;
            dumper = null;
            if (stoppedDumper != null) {
                stoppedDumper.cancel();
            }
        }
        if (stoppedDumper != null) {
            stoppedDumper.awaitLastDump(); // outside the lock: up to 10 s that no other transition should wait
        }
        Autostart.forget(this);
        writeFinal(settings.file(), this::dump);
        writeFinal(settings.htmlFile(), this::writeHtml);
        long dropped = droppedRecords();
        if (dropped > 0) {
            LOG.info("profiler stopped; {} records were dropped (ring capacity {} per thread)", dropped, settings.ringCapacity());
        } else {
            LOG.debug("profiler stopped");
        }
    }

    private interface Output {
        void write(Path path) throws IOException;
    }

    private static void writeFinal(Path path, Output out) {
        if (path != null) {
            try {
                out.write(path);
            } catch (IOException | RuntimeException e) {
                LOG.warn("profiler: could not write {}", path, e);
            }
        }
    }

    /** The "engine closed" transition, taken when the engine reports {@link OpListener#closed()}. */
    void engineClosed() {
        stop();
    }

    /** The {@code pause} transition: stops recording for now (events are ignored, not buffered); does nothing unless running. */
    public void pause() {
        synchronized (control) {
            if (state == State.RUNNING) {
                state = State.PAUSED;
            }
        }
    }

    /** The {@code resume} transition: records again after {@link #pause()}; does nothing unless paused. */
    public void resume() {
        synchronized (control) {
            if (state == State.PAUSED) {
                state = State.RUNNING;
            }
        }
    }

    /**
     * Forgets everything recorded so far (rings, names, counts); recording goes on into new rings.
     * Threads move to the new rings at their next event; a record being written at that moment may
     * land in the old ring and be lost. Not a transition: the state stays as it is.
     */
    public void clear() {
        synchronized (control) {
            recorder.clear();
        }
    }

    /** The current state. */
    public State state() {
        return state;
    }

    /** Whether events are being recorded now (running, not paused). */
    public boolean isRecording() {
        return state == State.RUNNING;
    }

    /** The recording mode. */
    public Mode mode() {
        return settings.mode();
    }

    /**
     * Records lost so far: overwritten in full rings, held by rings evicted for new threads, or
     * reported by threads that got no ring ({@value #MAX_THREADS_PROPERTY}). Since the last clear.
     */
    public long droppedRecords() {
        return recorder.droppedRecords();
    }

    /** The listener this profiler adds to its engine (tests drive it directly). */
    OpListener listener() {
        return recorder;
    }

    /**
     * Writes the Chrome trace-event JSON of what is recorded to {@code path}: to a temporary file in
     * the same directory, then moved into place atomically (where the file system can), so a reader
     * never sees a partial file. Logs a warning when records were dropped.
     *
     * @throws IOException if writing fails (the previous file, if any, is left as it was)
     */
    public void dump(Path path) throws IOException {
        Objects.requireNonNull(path, "path");
        files.dumpJson(recorder.snapshot(), path, settings.ringCapacity());
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
        TraceModel model = recorder.snapshot();
        files.write(path, w -> HtmlWriter.write(model, settings.maxHtmlOps(), w));
    }

    /** Aggregate statistics per op name of what is recorded now (the ops a dump now would hold). */
    public AggregateStats stats() {
        return AggregateStats.of(recorder.snapshot());
    }

    /** Writes the trace of what is recorded now to {@code out} (not closed). */
    public void writeTrace(Writer out) throws IOException {
        TraceWriter.write(recorder.snapshot(), out);
    }

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
            return Settings.readSystemProperties(new Builder());
        }

        /** Which ops to record; default {@link Mode#ALL}. */
        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * Records per thread ring (32 bytes each), rounded up to a power of two; default
         * {@value Profiler#DEFAULT_RING_CAPACITY}. An op takes about 4 records plus one per 5
         * variables, one per argument and one per dependency arrow, spread over the threads that saw it.
         *
         * @throws IllegalArgumentException if not in [16, 2^26]
         */
        public Builder ringCapacity(int records) {
            if (records < Settings.MIN_RING_CAPACITY || records > Settings.MAX_RING_CAPACITY) {
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
            if (threads < 1 || threads > Settings.MAX_MAX_THREADS) {
                throw new IllegalArgumentException("max threads must be in [1, 65536], got " + threads);
            }
            this.maxThreads = threads;
            return this;
        }

        /** The trace file written when the profiler stops and periodically; null (default) for none. */
        public Builder file(Path file) {
            this.file = file;
            return this;
        }

        /** An HTML timeline written when the profiler stops; null (default) for none. */
        public Builder htmlFile(Path file) {
            this.htmlFile = file;
            return this;
        }

        Path file() {
            return file;
        }

        Path htmlFile() {
            return htmlFile;
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

        /** Whether to commit {@link OpEvent}s and {@link BulkMemberEvent}s while JFR records them; default true. */
        public Builder jfr(boolean enabled) {
            this.jfr = enabled;
            return this;
        }

        /** A new profiler in state {@link State#NEW}. */
        public Profiler build() {
            return new Profiler(new Settings(mode, ringCapacity, maxThreads, file, htmlFile, dumpPeriod, maxHtmlOps, jfr));
        }
    }
}
