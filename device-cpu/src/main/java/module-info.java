/**
 * The CPU device: type {@code cpu}, any id ≥ 0 a logical device; streams are synchronous lanes run by
 * the thread that drives them.
 */
module org.depengine.device.cpu {
    requires org.depengine.api;

    provides org.depengine.api.device.DeviceProvider with org.depengine.device.cpu.CpuDeviceProvider;
}
