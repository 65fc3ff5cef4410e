package org.depengine.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.depengine.testkit.EngineSetup.Configuration;

/** Names the configuration of one of {@link EngineConformance}'s nested configuration classes. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface InConfiguration {
    /** @return the configuration the suites nested in the annotated class run in */
    Configuration value();
}
