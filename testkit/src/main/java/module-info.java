/**
 * The conformance suite: abstract JUnit 5 test classes every engine module extends, so one set of
 * rules is checked against every engine, plus the serial oracle and workload generators they use.
 */
module org.depengine.testkit {
    requires transitive org.depengine.api;
    requires transitive org.depengine.kvstore; // KVStoreConformance
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.jupiter.params;
    requires java.management; // heap and live-object figures of the soak program

    exports org.depengine.testkit;

    // Stand-in devices for the device errors of MisuseConformance (also in META-INF/services, for
    // class-path runs).
    provides org.depengine.api.device.DeviceProvider
            with org.depengine.testkit.TestDeviceProviders.Unavailable, org.depengine.testkit.TestDeviceProviders.Empty;
}
