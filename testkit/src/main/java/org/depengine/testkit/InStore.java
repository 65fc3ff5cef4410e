package org.depengine.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Names the point of one of {@link KVStoreConformance}'s nested configuration classes: an engine and a worker count. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface InStore {
    /** @return the engine */
    String engine();

    /** @return the workers */
    int workers();
}
