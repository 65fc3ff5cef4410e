/**
 * The {@code "opencl"} device type of depengine, on JOCL: every OpenCL device of every platform is
 * offered as {@code opencl:N}. Streams are in-order command queues, events are markers, device-side
 * waits are barriers with a wait list. Every device primitive of
 * {@code org.depengine.api.device.primitive} is offered, as OpenCL C kernels built once per device.
 *
 * <p>{@code jocl} is an automatic module (the JOCL jar has no module descriptor); its types
 * ({@code cl_mem}, {@code cl_command_queue}) appear in this module's API for writing kernels, hence
 * {@code requires transitive}.
 */
module org.depengine.device.opencl {
    requires transitive org.depengine.api;
    requires transitive jocl;
    requires transitive org.depengine.device.common;
    requires org.slf4j;

    exports org.depengine.device.opencl;

    provides org.depengine.api.device.DeviceProvider with org.depengine.device.opencl.OpenClDeviceProvider;
}
