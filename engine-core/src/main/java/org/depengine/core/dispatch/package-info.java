/**
 * An engine's way from push to run: validation ({@code PushChecks}), the push, registration and
 * dispatch ({@code Dispatcher}), running one op ({@code OpExecution}), the listener fan-out.
 */
package org.depengine.core.dispatch;
