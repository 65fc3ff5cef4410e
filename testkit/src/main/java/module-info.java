/**
 * The conformance suite: abstract JUnit 5 test classes every engine module extends, so one set of
 * rules is checked against every engine, plus the serial oracle and workload generators they use.
 */
module org.depengine.testkit {
    requires transitive org.depengine.api;
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.jupiter.params;

    exports org.depengine.testkit;
}
