package org.depengine.api;

/**
 * A failure reported by an engine: most often an op's failure rethrown by a wait, with the op's
 * original throwable (the same instance) as the cause and the op named in the message.
 */
public class EngineException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An engine failure with its message.
     *
     * @param message what went wrong
     */
    public EngineException(String message) {
        super(message);
    }

    /**
     * An engine failure with its message and cause.
     *
     * @param message what went wrong
     * @param cause the original failure
     */
    public EngineException(String message, Throwable cause) {
        super(message, cause);
    }
}
