package org.depengine.kvstore.hazelcast.protocol;

/**
 * What a read of a round finds: the round is there to read, it is not yet (and what it waits for), or it
 * never will be (and why).
 *
 * @param status the outcome
 * @param why what is missing ({@link Status#NOT_READY}) or why the round cannot complete
 *     ({@link Status#FAILED}); null when {@link Status#READY}
 */
public record Answer(Status status, String why) {
    /** A read's outcome. */
    public enum Status { READY, NOT_READY, FAILED }

    /** The round is there. */
    public static final Answer READY = new Answer(Status.READY, null);

    /** Not yet: {@code why} says what the round waits for. */
    public static Answer notReady(String why) {
        return new Answer(Status.NOT_READY, why);
    }

    /** Never: {@code why} says why. */
    public static Answer failed(String why) {
        return new Answer(Status.FAILED, why);
    }
}
