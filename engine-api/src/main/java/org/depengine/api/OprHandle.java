package org.depengine.api;

/**
 * A reusable operator made by {@link Engine#newOperator}: a function with its variable lists and
 * property, validated once and pushed any number of times with {@link Engine#push}. Deleting it with
 * {@link Engine#deleteOperator} makes later pushes fail with {@link IllegalStateException}.
 */
public interface OprHandle {
    /**
     * The operator's name as given to {@link Engine#newOperator}, or a generated one.
     *
     * @return the operator's name as given to {@link Engine#newOperator}, or a generated one
     */
    String name();
}
