package org.depengine.kvstore;

import java.util.Set;
import org.depengine.api.Engine;
import org.depengine.kvstore.spi.KVStoreProvider;

/** Stand-in providers for the lookup's errors: two claim "dup". */
public final class TestProviders {
    private TestProviders() {
    }

    /** Offers "alpha" and "dup"; its open says it was reached. */
    public static final class Alpha implements KVStoreProvider {
        /** For ServiceLoader. */
        public Alpha() {
        }

        @Override
        public Set<String> types() {
            return Set.of("alpha", "dup");
        }

        @Override
        public KVStore open(Engine engine, String type, KVStoreSettings settings) {
            throw new UnsupportedOperationException("Alpha.open(" + type + ") reached");
        }
    }

    /** Offers "dup" too. */
    public static final class Dup implements KVStoreProvider {
        /** For ServiceLoader. */
        public Dup() {
        }

        @Override
        public Set<String> types() {
            return Set.of("dup");
        }

        @Override
        public KVStore open(Engine engine, String type, KVStoreSettings settings) {
            throw new UnsupportedOperationException("Dup.open reached");
        }
    }
}
