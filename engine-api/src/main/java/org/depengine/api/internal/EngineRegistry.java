package org.depengine.api.internal;

import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.depengine.api.Engine;
import org.depengine.api.spi.EngineConfig;
import org.depengine.api.spi.EngineCreationHook;
import org.depengine.api.spi.EngineProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Finds engine providers and holds the process-wide engine of {@link Engine#get()}. */
public final class EngineRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(EngineRegistry.class);
    private static final String HOW_TO_ADD = "Put the engine's jar on the class or module path (engine-naive, "
            + "engine-pooled, engine-perdevice), or write an org.depengine.api.spi.EngineProvider and declare it with "
            + "'provides' in module-info and in META-INF/services.";

    /** How long the exit hook waits for the process-wide engine's pending ops, in milliseconds. */
    static final String EXIT_TIMEOUT_PROPERTY = "depengine.exitTimeoutMs";
    private static final Object LOCK = new Object();
    private static Engine global; // guarded by LOCK
    private static long exitTimeoutMillis; // guarded by LOCK: read when the global engine is made
    private static boolean hookInstalled; // guarded by LOCK

    private EngineRegistry() {
    }

    /** A new engine of that name. */
    public static Engine create(String name, EngineConfig config) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(config, "config");
        config.warnUnknownKeys();
        ProviderLookup<EngineProvider> lookup = ProviderLookup.load(EngineProvider.class, "engine", EngineProvider::name);
        Engine engine = lookup.require(name, HOW_TO_ADD).create(config);
        runCreationHooks(engine);
        return engine;
    }

    private static void runCreationHooks(Engine engine) {
        var it = ServiceLoader.load(EngineCreationHook.class, EngineRegistry.class.getClassLoader()).iterator();
        while (true) {
            EngineCreationHook hook;
            try {
                if (!it.hasNext()) {
                    return;
                }
                hook = it.next();
            } catch (ServiceConfigurationError e) {
                LOG.warn("an engine creation hook could not be loaded", e);
                continue;
            }
            try {
                hook.engineCreated(engine);
            } catch (IllegalArgumentException e) {
                // An invalid setting (the message names it): the user asked for something the engine
                // would otherwise silently run without.
                try {
                    engine.close();
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("engine creation hook {} failed for engine '{}'; ignored", hook.getClass().getName(), engine.name(), e);
            }
        }
    }

    /** The process-wide engine, created on first use and again after it was closed. */
    public static Engine global() {
        synchronized (LOCK) {
            if (global == null || global.isClosed()) {
                long exitMillis = exitTimeoutFromSystemProperties();
                String name = EngineConfig.system(ApiSettings.ENGINE);
                global = create(name, EngineConfig.fromSystemProperties());
                exitTimeoutMillis = exitMillis;
                LOG.debug("process-wide engine: {}", name);
                if (!hookInstalled) {
                    hookInstalled = true;
                    Runtime.getRuntime().addShutdownHook(new Thread(EngineRegistry::closeGlobalAtExit, "depengine-shutdown"));
                }
            }
            return global;
        }
    }

    /**
     * The exit hook's bound, {@value #EXIT_TIMEOUT_PROPERTY} (default 30000).
     *
     * @throws IllegalArgumentException naming the property if it is not a whole number &ge; 0
     */
    static long exitTimeoutFromSystemProperties() {
        return org.depengine.api.spi.EngineConfig.system(ApiSettings.EXIT_TIMEOUT).toMillis();
    }

    private static void closeGlobalAtExit() {
        Engine e;
        long millis;
        synchronized (LOCK) {
            e = global;
            millis = exitTimeoutMillis;
        }
        if (e == null || e.isClosed()) {
            return;
        }
        // Bounded: an async op that never completes must not keep the JVM from exiting.
        try {
            e.waitForAll(java.time.Duration.ofMillis(millis));
        } catch (org.depengine.api.WaitTimeoutException ex) {
            LOG.warn("exiting with work still pending in the process-wide engine '{}' after {} ms: {}", e.name(), millis,
                    ex.getMessage());
            return; // its threads are daemons; closing would wait for the stuck op forever
        } catch (RuntimeException ex) {
            LOG.warn("an op of the process-wide engine failed before exit and was not reported", ex);
        }
        try {
            e.close(); // everything has finished: this only stops the threads
        } catch (RuntimeException ex) {
            LOG.warn("closing the process-wide engine at exit failed", ex);
        }
    }
}
