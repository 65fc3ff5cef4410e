/**
 * The user-facing API of depengine: push closures with the variables they read and write, and the
 * engine runs them in dependency order. Start at {@link org.depengine.api.Engine}.
 */
package org.depengine.api;
