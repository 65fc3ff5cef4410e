package org.depengine.kvstore.spi;

/**
 * A round of a key as one long: the period (the number of {@link org.depengine.kvstore.KVStore#barrier()
 * barrier()} calls before it) in the high 32 bits, the push's index within the period (from 1; 0 means
 * "before the period's first push") in the low 32. Round 0 is the key's {@code init}. Periods let a
 * worker with fewer batches skip rounds ({@code endOfData}) and rejoin after the next barrier in step
 * with the others; ordering the longs orders the rounds.
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
