/** The CPU device provider. Use it through {@link org.depengine.api.device.Devices}. */
package org.depengine.device.cpu;
