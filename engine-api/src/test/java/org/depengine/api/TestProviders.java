package org.depengine.api;

import org.depengine.api.spi.EngineConfig;
import org.depengine.api.spi.EngineProvider;

/** Engine providers that exist only to exercise provider lookup errors. */
final class TestProviders {
    private TestProviders() {
    }

    /** One of two providers claiming the name "dup". */
    public static final class DupOne implements EngineProvider {
        @Override
        public String name() {
            return "dup";
        }

        @Override
        public Engine create(EngineConfig config) {
            throw new UnsupportedOperationException("never created: the name is ambiguous");
        }
    }

    /** The other provider claiming "dup". */
    public static final class DupTwo implements EngineProvider {
        @Override
        public String name() {
            return "dup";
        }

        @Override
        public Engine create(EngineConfig config) {
            throw new UnsupportedOperationException("never created: the name is ambiguous");
        }
    }

    /** A provider whose constructor fails: it must be reported by name, not dropped. */
    public static final class Broken implements EngineProvider {
        public Broken() {
            throw new IllegalStateException("broken on purpose");
        }

        @Override
        public String name() {
            return "broken";
        }

        @Override
        public Engine create(EngineConfig config) {
            throw new UnsupportedOperationException();
        }
    }
}
