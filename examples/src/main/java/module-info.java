/**
 * Programs a newcomer runs first; each is a {@code main} with {@code --help}. Engines and devices
 * (cpu, opencl, cuda, and the example plugin's sim) are found with ServiceLoader, not required here.
 */
module org.depengine.examples {
    requires org.depengine.api;
    requires org.depengine.profiler;
    // MultiDeviceTraining's gradients and weights go through a KVStore (local, dist_sync, dist_async).
    requires org.depengine.kvstore;
    // CustomDevicePlugin launches commands on the plugin's streams; the engine finds the plugin itself.
    requires org.depengine.examples.customdevice;
    // MultiDeviceTraining --metrics: the meters, and --metrics-port's Prometheus text over the JDK's HTTP server.
    requires org.depengine.micrometer;
    requires micrometer.registry.prometheus;
    requires jdk.httpserver;
    requires java.management; // WorkerProcesses passes rank 0's JVM options on
    // Command lines: picocli reads and sets the @Option fields of the examples by reflection.
    requires info.picocli;

    exports org.depengine.examples;
    opens org.depengine.examples to info.picocli;
}
