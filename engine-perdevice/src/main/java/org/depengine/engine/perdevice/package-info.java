/** The perdevice engine; use it through {@link org.depengine.api.Engine#create(String)} with "perdevice". */
package org.depengine.engine.perdevice;
