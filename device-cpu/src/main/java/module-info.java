/**
 * The CPU device: type {@code cpu}, any id ≥ 0 a logical device; streams are synchronous lanes run by
 * the thread that drives them. Memory is a {@code float[]} per buffer
 * ({@link org.depengine.device.cpu.CpuBuffer#floats()}), and every primitive of
 * {@code org.depengine.api.device.primitive} is offered, in plain Java.
 */
module org.depengine.device.cpu {
    requires transitive org.depengine.api;

    exports org.depengine.device.cpu;

    provides org.depengine.api.device.DeviceProvider with org.depengine.device.cpu.CpuDeviceProvider;
}
