package org.depengine.core.tracker;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The op's transition table, the one place it is written. An op's state is one word in its completion
 * core ({@link OpLife}: a phase and two flags) and, only for an op released at launch, the stage of its
 * fence part ({@link FenceState}); every change of either is one row below, made by the one method
 * named for it, and nothing else writes them. Refused moves are rows too (a lost race returns false
 * and changes nothing).
 *
 * <pre>
 * row              part   from              to                 who, and how
 * START            life   PENDING           RUNNING            the op's runner; a release store: a pending op's dispatcher owns it
 * IN_FLIGHT        life   RUNNING           RUNNING+IN_FLIGHT  the runner, its function returned and the op is not complete
 *                                           (+LAUNCHED)        (a callback or device work to come); CAS
 * IN_FLIGHT_LATE   life   DONE, FINISHED    unchanged: false   the same, after a completion: the caller takes the op out of
 *                                                              its in-flight registry itself
 * CLAIM            life   RUNNING           DONE               a completer of an op whose completion was handed out (an async
 *                                                              op's callback or its function's throw, a launched op's device
 *                                                              report or failed launch); CAS
 * CLAIM_LOST       life   DONE, FINISHED    unchanged: false   every other such completer
 * FINISH_CLAIMED   life   DONE              FINISHED           the claimer, last in finishCompletion
 * FINISH_RUN       life   RUNNING           FINISHED           the runner of an op whose completion it never handed out (a
 *                                                              sync op done when its function returns or throws, a skip, a
 *                                                              refusal), last in finishCompletion: nobody else can complete it
 * REUSE            life   FINISHED          PENDING            a replay that took the op's retired block for itself; flags
 *                                                              cleared (its block pool hands a retired block to one replay)
 * FENCE_LAUNCH     fence  NONE              FENCE              the runner of a device op released at launch, while RUNNING
 * FENCE_DONE       fence  FENCE             DONE               the fence's completer, in finishCompletion, under the fence's
 *                                                              monitor
 * </pre>
 *
 * Every row but REUSE keeps the flags it found. After DONE (or, on FINISH_RUN's path, while the
 * runner completes an op only it can complete) the completing thread alone writes the word, so
 * FINISH_CLAIMED and FINISH_RUN are stores, not CAS. The fence stage only moves forward.
 *
 * <p>With {@code -Ddepengine.test.opTransitions=true} (engine-core's tests) every move is checked
 * against its row as it is made (a move that is not its row throws {@link AssertionError}, failing the
 * test or model check that made it) and counted, so that a test can show that the code takes only these
 * rows and takes every one of them; otherwise the recording is compiled away.
 */
public enum OpTransition {
    START(Part.LIFE, 1 << OpLife.PENDING, OpLife.RUNNING),
    IN_FLIGHT(Part.LIFE, 1 << OpLife.RUNNING, OpLife.RUNNING),
    IN_FLIGHT_LATE(Part.LIFE, 1 << OpLife.DONE | 1 << OpLife.FINISHED, OpTransition.UNCHANGED),
    CLAIM(Part.LIFE, 1 << OpLife.RUNNING, OpLife.DONE),
    CLAIM_LOST(Part.LIFE, 1 << OpLife.DONE | 1 << OpLife.FINISHED, OpTransition.UNCHANGED),
    FINISH_CLAIMED(Part.LIFE, 1 << OpLife.DONE, OpLife.FINISHED),
    FINISH_RUN(Part.LIFE, 1 << OpLife.RUNNING, OpLife.FINISHED),
    REUSE(Part.LIFE, 1 << OpLife.FINISHED, OpLife.PENDING),
    FENCE_LAUNCH(Part.FENCE, 1 << FenceState.NONE, FenceState.FENCE),
    FENCE_DONE(Part.FENCE, 1 << FenceState.FENCE, FenceState.DONE);

    /** Which state a row moves: the completion core's word, or the fence part's stage. */
    public enum Part {
        /** {@link OpLife}'s state word: the phase in bits 0-1, flags above. */
        LIFE,
        /** {@link FenceState}'s stage. */
        FENCE
    }

    /** A row's {@code to} for a refused move: the state is left as it was (qualified above: a constant, read before it is declared). */
    private static final int UNCHANGED = -1;
    private static final boolean TRACE = Boolean.getBoolean("depengine.test.opTransitions");

    private final Part part;
    private final int from; // a set of phases (or stages): bit p is phase p
    private final int to;   // a phase or stage, or UNCHANGED

    OpTransition(Part part, int from, int to) {
        this.part = part;
        this.from = from;
        this.to = to;
    }

    /** The state this row moves. */
    public Part part() {
        return part;
    }

    /**
     * Whether a move from {@code before} to {@code after} (life: whole words; fence: stages) is this
     * row: the phase (or stage) it starts from is one of the row's, it ends where the row says, and
     * the flags are kept, plus {@code IN_FLIGHT}'s own (REUSE clears them).
     */
    public boolean matches(int before, int after) {
        if (part == Part.FENCE) {
            return (from & (1 << before)) != 0 && after == (to == UNCHANGED ? before : to);
        }
        int phase = before & OpLife.PHASE;
        if ((from & (1 << phase)) == 0) {
            return false;
        }
        if (to == UNCHANGED) {
            return after == before;
        }
        if ((after & OpLife.PHASE) != to) {
            return false;
        }
        int flagsBefore = before & ~OpLife.PHASE;
        int flagsAfter = after & ~OpLife.PHASE;
        return switch (this) {
            case REUSE -> flagsAfter == 0;
            case IN_FLIGHT -> (flagsAfter & OpLife.IN_FLIGHT) != 0 && (flagsAfter & flagsBefore) == flagsBefore
                    && (flagsAfter & ~(flagsBefore | OpLife.IN_FLIGHT | OpLife.LAUNCHED)) == 0;
            default -> flagsAfter == flagsBefore;
        };
    }

    /** Records a move the code made by this row (only with the test switch on; see the class comment). */
    void taken(int before, int after) {
        if (TRACE) {
            Record.add(this, before, after);
        }
    }

    /** Whether moves are being recorded ({@code -Ddepengine.test.opTransitions=true}). */
    public static boolean recording() {
        return TRACE;
    }

    /** How many moves by {@code row} were recorded since the JVM started (0 unless {@link #recording()}). */
    public static long count(OpTransition row) {
        return Record.COUNTS.get(row.ordinal());
    }

    /** The first recorded move that did not match its row, described; null if every one matched. */
    public static String firstMismatch() {
        return Record.MISMATCH.get();
    }

    /** The recording: counts per row and the first mismatch. Lock-free; only used with the test switch on. */
    private static final class Record {
        static final AtomicLongArray COUNTS = new AtomicLongArray(values().length);
        static final AtomicReference<String> MISMATCH = new AtomicReference<>();

        private Record() {
        }

        static void add(OpTransition row, int before, int after) {
            COUNTS.incrementAndGet(row.ordinal());
            if (!row.matches(before, after)) {
                String what = row + " moved " + Integer.toBinaryString(before) + " to " + Integer.toBinaryString(after)
                        + ", which is not that row of the table";
                MISMATCH.compareAndSet(null, what);
                throw new AssertionError(what); // fails the test (a model check's run) that made the move
            }
        }
    }
}
