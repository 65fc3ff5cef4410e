/**
 * Micrometer binders for an {@link org.depengine.api.Engine} ({@link org.depengine.micrometer.EngineMeters})
 * and a {@link org.depengine.kvstore.KVStore} ({@link org.depengine.micrometer.KVStoreMeters}):
 * <pre>{@code
 * MeterRegistry registry = new SimpleMeterRegistry(); // or a Prometheus registry, ...
 * try (EngineMeters meters = new EngineMeters(engine)) {
 *     meters.bindTo(registry);
 *     // push ops; registry.get("executor.completed").tag("name", "depengine-perdevice-cpu0-worker")...
 * }
 * }</pre>
 * Each binder may be bound to several registries, and {@code close()} removes the meters it registered.
 */
package org.depengine.micrometer;
