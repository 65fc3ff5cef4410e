/**
 * The conformance suites: abstract JUnit 5 test classes every engine module runs through one
 * {@code EngineConformance} subclass, so one set of rules is checked against every engine, plus the
 * serial oracle and workload generators they use (see the package documentation).
 */
module org.depengine.testkit {
    requires transitive org.depengine.api;
    requires transitive org.depengine.kvstore; // KVStoreConformance
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.jupiter.params;
    requires com.fasterxml.jackson.core; // the one JSON reader of the tests (Json): Jackson's streaming parser
    requires java.management; // heap and live-object figures of the soak program
    requires jdk.management; // KeptFailures: a live heap dump (HotSpotDiagnosticMXBean) explains a kept failure
    requires org.slf4j;

    exports org.depengine.testkit;

    // Stand-in devices for the device errors of MisuseConformance and MisbehavingDeviceConformance, and the asynchronous
    // device the suites run on in EngineSetup.Ops.ASYNC_DEVICE (also in META-INF/services, for class-path runs).
    provides org.depengine.api.device.DeviceProvider
            with org.depengine.testkit.TestDeviceProviders.Unavailable, org.depengine.testkit.TestDeviceProviders.Empty,
                    org.depengine.testkit.MisbehavingDevices, org.depengine.testkit.AsyncStandInDevices;
}
