/**
 * Worker threads for threaded engines: a {@link org.depengine.core.exec.WorkerGroup} is a queue
 * (FIFO or priority) and the threads that own it; each worker may own a device stream.
 */
package org.depengine.core.exec;
