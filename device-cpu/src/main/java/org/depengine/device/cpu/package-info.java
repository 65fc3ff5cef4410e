/**
 * The CPU device provider. Use it through {@link org.depengine.api.device.Devices}. Exported for
 * {@link org.depengine.device.cpu.CpuBuffer#floats()}: the memory of a CPU buffer as a {@code float[]},
 * for code that runs only on the CPU and wants results without a copy.
 */
package org.depengine.device.cpu;
