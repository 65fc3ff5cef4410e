package org.depengine.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The worker counts of the cross product a {@link KVStoreSuite} runs in (its cases open that many workers). */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface Workers {
    /** @return the worker counts, ascending */
    int[] value();
}
