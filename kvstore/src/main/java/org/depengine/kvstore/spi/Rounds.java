package org.depengine.kvstore.spi;

/**
 * A round of a key as one long: the period (the number of {@link org.depengine.kvstore.KVStore#barrier()
 * barrier()} calls before it) in the high 32 bits, the push's index within the period (from 1; 0 means
 * "before the period's first push") in the low 32. Round 0 is the key's {@code init}. Periods let a
 * worker with fewer batches skip rounds ({@code endOfData}) and rejoin after the next barrier in step
 * with the others; ordering the longs orders the rounds.
 *
 * <h2>Decided when the ops run, in call order</h2>
 * A round (a round) is a period and an index: the period counts this worker's {@link org.depengine.kvstore.KVStore#barrier()}
 * calls; a push gets the next index of its key in the current period (from 1); a pull reads the round
 * of this worker's last push of the key in the current period, or, before any, index 0 of the period
 * (every round of the periods before), or round 0 (the init) in the period the key was initialised in.
 * The ops decide it when they run, from state the key's variables order: the send's index is the number
 * of writes of {@code mergedVar} (one per push, a skipped one included) since the period's mark op, the
 * fetch's the same count (both read {@code mergedVar}, so no later push's write moves it first), and the
 * mark op of each barrier starts the next period. So the rounds are the calls' order whenever the ops
 * run: a sequence of calls made with no waits gives the values it gives with a wait after every call,
 * and the same calls recorded in an {@link org.depengine.api.Engine#capture()} and replayed give, at each replay, the
 * rounds the calls made then would. In {@code dist_sync}, {@link AbstractKVStore#fetch} completes once that round's
 * update has landed, which is how a pull sees the whole round; in {@code dist_async} and {@code local}
 * the round is informational. {@code endOfData()} and {@code barrier()} push an op after every op of
 * this worker's keys that calls {@link AbstractKVStore#endPeriod} (when {@link AbstractKVStore#endsPeriods()}): the rounds of that
 * period complete without this worker from then on.
 */
public final class Rounds {
    private Rounds() {
    }

    /** The round {@code index} of {@code period}. */
    public static long of(int period, long index) {
        if (period < 0 || index < 0 || index > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("round index " + index + " of period " + period + " is out of range");
        }
        return ((long) period << 32) | index;
    }

    /** The period of {@code round}. */
    public static int period(long round) {
        return (int) (round >>> 32);
    }

    /** The index of {@code round} within its period. */
    public static long index(long round) {
        return round & 0xFFFF_FFFFL;
    }

    /** For messages: {@code 7}, or {@code 7 of period 2} after barriers. */
    public static String text(long round) {
        return period(round) == 0 ? Long.toString(index(round)) : index(round) + " of period " + period(round);
    }
}
