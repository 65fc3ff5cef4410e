/**
 * Bookkeeping shared by the asynchronous devices: a device's lifecycle and close order, events over
 * pooled native handles, buffers over native memory handles, a stream's ledger
 * of events and asynchronous errors, the per-device completion thread, the count of callbacks in
 * flight that a close waits for, bounded pools. Nothing here
 * touches native code; the devices supply the native calls.
 */
package org.depengine.device.common;
