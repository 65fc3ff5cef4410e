package org.depengine.kvstore.optimizers;

import java.nio.FloatBuffer;
import org.depengine.kvstore.Updater;

/** {@code stored += merged}. */
public final class Sum implements Updater {
    private static final long serialVersionUID = 1L;
    /** The one instance. */
    public static final Sum INSTANCE = new Sum();

    private Sum() {
    }

    @Override
    public void update(String key, FloatBuffer merged, FloatBuffer stored) {
        for (int i = 0, n = stored.limit(); i < n; i++) {
            stored.put(i, stored.get(i) + merged.get(i));
        }
    }

    private Object readResolve() {
        return INSTANCE;
    }

    @Override
    public String toString() {
        return "sum";
    }
}
