package org.depengine.profiler;

import org.depengine.api.FnProperty;
import org.depengine.api.listen.OpInfo;

/**
 * The record layout of the rings: three payload words per record, the low byte of the first the
 * kind. Not part of the API.
 */
/*
 * READY     w1 = kind                                   w2 = op id  w3 = nanoTime
 * STARTED   w1 = kind                                   w2 = op id  w3 = nanoTime
 * LAUNCHED  w1 = kind                                   w2 = op id  w3 = nanoTime
 * FINISHED  w1 = kind | outcome<<8 | property<<12 | profiling<<20 | args kept<<21 | unnamed<<24
 *                | context id<<32
 *                                                       w2 = op id  w3 = nanoTime
 * INFO      w1 = kind | reads kept<<8 | writes kept<<20 | name id<<32 (0 when unnamed: the name is
 *                "op#" + op id, built only when shown, as OpInfo.named() allows)
 *           w2 = priority (low 32) | stream id<<32
 *           w3 = reads total (low 32) | writes total<<32
 * VARS      w1 = kind | count<<8 | var id<<32           w2 = var | var<<32   w3 = var | var<<32
 * ARGS      w1 = kind | value type<<8 | key id<<32     w2 = value (long, double bits or text id)
 * RELEASED  w1 = kind                                   w2 = producer id    w3 = consumer id
 * MEMBER    w1 = kind | outcome<<8 | name id<<32       w2 = merged op id   w3 = member's start nanoTime
 * MEMBER_END w1 = kind                                  w2 = member index   w3 = member's end nanoTime
 * FINISHED is always followed by its INFO and VARS records (reads, then writes), then one ARGS record
 * per argument kept, in one group. MEMBER (a member of a bulk's merged op, OpListener.memberFinished) is
 * always followed by its MEMBER_END, in one group; both come before the merged op's FINISHED.
 */
final class Rec {
    static final int READY = 1;
    static final int STARTED = 2;
    static final int LAUNCHED = 3;
    static final int FINISHED = 4;
    static final int INFO = 5;
    static final int VARS = 6;
    static final int RELEASED = 7;
    static final int ARGS = 8;
    static final int MEMBER = 9;
    static final int MEMBER_END = 10;

    /** Variables kept per list and op; the rest are only counted. */
    static final int MAX_VARS = 64;
    static final int VARS_PER_RECORD = 5;
    /** Arguments kept per op (three bits of FINISHED); the rest are dropped. */
    static final int MAX_ARGS = 7;
    /** FINISHED's flag for an op pushed without a name. */
    static final long UNNAMED = 1L << 24;

    static final int ARG_LONG = 0;
    static final int ARG_DOUBLE = 1;
    static final int ARG_BOOLEAN = 2;
    static final int ARG_TEXT = 3;

    static final int OUTCOME_DONE = 0;
    static final int OUTCOME_FAILED = 1;
    static final int OUTCOME_SKIPPED = 2;
    static final int OUTCOME_UNKNOWN = 3;

    private static final String[] PROPERTY_NAMES = propertyNames();

    private Rec() {
    }

    static int outcome(OpInfo.Outcome o) {
        if (o == null) {
            return OUTCOME_UNKNOWN;
        }
        switch (o) {
            case DONE:
                return OUTCOME_DONE;
            case FAILED:
                return OUTCOME_FAILED;
            case SKIPPED:
                return OUTCOME_SKIPPED;
            default:
                return OUTCOME_UNKNOWN;
        }
    }

    static String outcomeName(int o) {
        switch (o) {
            case OUTCOME_DONE:
                return "DONE";
            case OUTCOME_FAILED:
                return "FAILED";
            case OUTCOME_SKIPPED:
                return "SKIPPED";
            default:
                return "UNKNOWN";
        }
    }

    /** FnProperty names by ordinal, looked up without touching the enum's values() array per call. */
    static String propertyName(int ordinal) {
        return ordinal >= 0 && ordinal < PROPERTY_NAMES.length ? PROPERTY_NAMES[ordinal] : "UNKNOWN";
    }

    private static String[] propertyNames() {
        FnProperty[] v = FnProperty.values();
        String[] names = new String[v.length];
        for (int i = 0; i < v.length; i++) {
            names[i] = v[i].name();
        }
        return names;
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
