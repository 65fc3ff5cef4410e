/**
 * The op-lifecycle listener SPI through which engines report every op's life to profilers and
 * diagnostics: {@link org.depengine.api.listen.OpListener}, told about
 * {@link org.depengine.api.listen.OpInfo}s.
 */
package org.depengine.api.listen;
