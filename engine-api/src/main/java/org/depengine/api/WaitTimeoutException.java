package org.depengine.api;

/** A bounded wait that ran out of time; the message lists the ops it was still waiting for. */
public class WaitTimeoutException extends EngineException {
    private static final long serialVersionUID = 1L;

    /**
     * A timed-out wait.
     *
     * @param message what timed out, and what was pending
     */
    public WaitTimeoutException(String message) {
        super(message);
    }
}
