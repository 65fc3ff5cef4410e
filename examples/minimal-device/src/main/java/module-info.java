module org.depengine.examples.minimal {
    requires org.depengine.api;

    provides org.depengine.api.device.DeviceProvider with org.depengine.examples.minimal.MinimalDeviceProvider;
}
