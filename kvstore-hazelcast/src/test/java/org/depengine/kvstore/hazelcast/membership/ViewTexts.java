package org.depengine.kvstore.hazelcast.membership;

import org.depengine.kvstore.hazelcast.protocol.View;

/** Test access to {@link ViewText} for the tests of other packages (the codec is package-private). */
public final class ViewTexts {
    private ViewTexts() {
    }

    /** {@link ViewText#decode}. */
    public static View decode(String text) {
        return ViewText.decode(text);
    }
}
