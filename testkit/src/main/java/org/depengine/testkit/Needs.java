package org.depengine.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a case of a {@link KVStoreSuite} needs of its point of the cross product; {@link KVStoreCrossing}
 * disables it elsewhere, with the reason (a declared dimension, not an assumption inside the test).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface Needs {
    /** @return the fewest workers the case opens */
    int workers() default 1;

    /** @return whether the case needs pulls that see the whole round */
    boolean syncRounds() default false;

    /** @return whether the case needs an engine that orders ready ops by priority */
    boolean priorities() default false;
}
