/**
 * The dispatch core every engine extends: {@link org.depengine.core.AbstractEngine}.
 */
package org.depengine.core;
