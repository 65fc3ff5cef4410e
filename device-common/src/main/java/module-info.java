/**
 * What the asynchronous devices (OpenCL, CUDA) share: {@link org.depengine.device.common.NativeDevice}
 * (a device's lifecycle: the open check, its streams and buffers, its completion thread and the close
 * order, so that a backend writes only native calls), {@link org.depengine.device.common.HandleEvent}
 * (an event over a native handle, pinned while in use and recycled once done),
 * {@link org.depengine.device.common.HandleBuffer} (device memory over a native handle, freed exactly once,
 * by its user or with its device),
 * {@link org.depengine.device.common.AsyncStream} (a stream's ledger of recorded events, its asynchronous
 * error and its callbacks), {@link org.depengine.device.common.CompletionThread} (one thread per device
 * for completion callbacks), {@link org.depengine.device.common.InFlight} (the callbacks a close waits
 * for) and {@link org.depengine.device.common.BoundedPool}.
 */
module org.depengine.device.common {
    requires transitive org.depengine.api;
    requires org.slf4j;

    exports org.depengine.device.common;
}
