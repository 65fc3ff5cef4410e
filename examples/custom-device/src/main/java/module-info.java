/**
 * An example device plugin, built outside depengine's device modules: device type {@code "sim"}, a
 * simulated accelerator. Each stream is a lane with its own thread that runs enqueued commands in
 * order after a configurable latency, so ops on it are launched when their function returns and done
 * later, as on a GPU. Dropping this jar on the module (or class) path is all an application does to
 * push to {@code sim:0}.
 */
module org.depengine.examples.customdevice {
    requires transitive org.depengine.api; // SimDevice, SimStream and SimBuffer implement its types
    requires org.slf4j;

    exports org.depengine.examples.customdevice;

    provides org.depengine.api.device.DeviceProvider with org.depengine.examples.customdevice.SimDeviceProvider;
    provides org.depengine.api.settings.SettingsCatalog with org.depengine.examples.customdevice.SimSettings;
}
