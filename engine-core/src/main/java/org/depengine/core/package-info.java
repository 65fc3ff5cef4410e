/**
 * The engine every engine is ({@link org.depengine.core.AbstractEngine}) and the one interface through
 * which engines differ ({@link org.depengine.core.DispatchPolicy}).
 */
package org.depengine.core;
