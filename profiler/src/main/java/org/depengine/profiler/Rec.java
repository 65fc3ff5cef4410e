package org.depengine.profiler;

/**
 * The record layout of the rings: three payload words per record, the low byte of the first the
 * kind. Not part of the API.
 */
/*
 * READY     w1 = kind                                   w2 = op id  w3 = nanoTime
 * STARTED   w1 = kind                                   w2 = op id  w3 = nanoTime
 * LAUNCHED  w1 = kind                                   w2 = op id  w3 = nanoTime
 * FINISHED  w1 = kind | outcome<<8 | property<<12 | profiling<<20 | context id<<32
 *                                                       w2 = op id  w3 = nanoTime
 * INFO      w1 = kind | reads kept<<8 | writes kept<<20 | name id<<32
 *           w2 = priority (low 32) | stream id<<32
 *           w3 = reads total (low 32) | writes total<<32
 * VARS      w1 = kind | count<<8 | var id<<32           w2 = var | var<<32   w3 = var | var<<32
 * RELEASED  w1 = kind                                   w2 = producer id    w3 = consumer id
 * FINISHED is always followed by its INFO and VARS records (reads, then writes), in one group.
 */
final class Rec {
    static final int READY = 1;
    static final int STARTED = 2;
    static final int LAUNCHED = 3;
    static final int FINISHED = 4;
    static final int INFO = 5;
    static final int VARS = 6;
    static final int RELEASED = 7;

    /** Variables kept per list and op; the rest are only counted. */
    static final int MAX_VARS = 64;
    static final int VARS_PER_RECORD = 5;

    static final int OUTCOME_DONE = 0;
    static final int OUTCOME_FAILED = 1;
    static final int OUTCOME_SKIPPED = 2;
    static final int OUTCOME_UNKNOWN = 3;

    private Rec() {
    }

    static int kind(long w1) {
        return (int) (w1 & 0xFF);
    }

    static int hi(long w) {
        return (int) (w >>> 32);
    }

    static int lo(long w) {
        return (int) w;
    }
}
