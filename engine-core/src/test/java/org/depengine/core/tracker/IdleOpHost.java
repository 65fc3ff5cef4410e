package org.depengine.core.tracker;

/**
 * An op host that does nothing when its ops become ready or complete, with a registration of its own:
 * for tests that run or complete ops themselves, without an engine.
 */
public final class IdleOpHost implements OpHost {
    private final Registration registration = new Registration();

    @Override
    public Registration registration() {
        return registration;
    }

    @Override
    public void ready(OpBlock op) {
        // the test runs the op itself
    }

    @Override
    public void completed(OpBlock op, Failure own) {
        // the test reads the op's outcome itself
    }
}
