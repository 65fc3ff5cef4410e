/**
 * An engine's devices and the ordering of device ops: the devices by context ({@code EngineDevices},
 * {@code EngineDevice}), every call into a plugin guarded ({@code PluginGuard}), and what happens when a
 * device op's function returns with work still on its stream: launch, release at launch, and how an op
 * released behind such an op waits for it ({@code DeviceOrdering}).
 */
package org.depengine.core.device;
