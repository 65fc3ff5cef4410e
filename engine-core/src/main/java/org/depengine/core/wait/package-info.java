/**
 * Waiting for ops, and what is pending: the waits and the failures they report ({@code Waits},
 * {@code FailureLedger}, with the hang doctor), the count of pending ops in epochs ({@code PendingOps}),
 * and the registry that diagnostics read ({@code Diagnostics}).
 */
package org.depengine.core.wait;
