/**
 * Device primitives, in the style of OneFlow's {@code ep} primitives: small, device-neutral building
 * blocks (copies, fill, matrix multiply, element-wise maths, activations, softmax cross-entropy,
 * reductions) that a {@link org.depengine.api.device.Device} offers through
 * {@link org.depengine.api.device.Device#primitive(Class)}. Code written against these interfaces runs
 * unchanged on every device that offers them; the cpu, opencl and cuda devices offer all of them.
 *
 * <h2>Common contract</h2>
 * <ul>
 *   <li><b>Data.</b> Values are 32-bit floats in native byte order, dense and row-major: element
 *       {@code (i, j)} of a {@code rows × cols} matrix is at float index {@code i * cols + j}. Labels are
 *       32-bit ints. Sizes and offsets are counted in elements, except in {@link Memcpy}, which counts
 *       bytes. A buffer may be larger than a call needs; only the named range is used.</li>
 *   <li><b>Streams.</b> Every call <em>enqueues</em> its work on the given stream and returns; the work
 *       runs after everything enqueued on that stream before it. Inside an op, pass the op's
 *       {@link org.depengine.api.RunContext#stream()}: the engine then knows when the work is done and
 *       orders dependent ops after it. On the CPU the stream is a synchronous lane, so the work is done
 *       when the call returns. Implementations make the device current themselves (nothing to bind
 *       before a call).</li>
 *   <li><b>Host buffers.</b> A {@link java.nio.ByteBuffer} given to {@link Memcpy} must be direct
 *       ({@link org.depengine.api.device.Device#allocateHost(int)} gives a suitable one) and must stay
 *       untouched (not read, written or freed) until the copy is done: after the op that enqueued it is
 *       done, after {@link org.depengine.api.device.Stream#synchronize()}, or after an event recorded
 *       behind it. Its position and limit are never moved.</li>
 *   <li><b>Reading results.</b> On any device, results come back to the host with
 *       {@link Memcpy#deviceToHost}; view the host buffer as floats with
 *       {@code buf.order(ByteOrder.nativeOrder()).asFloatBuffer()} once the copy is done.</li>
 *   <li><b>Errors.</b> A null argument (other than one documented as optional) is a
 *       {@link java.lang.NullPointerException}. A negative size or offset, a buffer too small for the
 *       range a call uses, a buffer of another device, or a stream of another device or of another
 *       device type is an {@link java.lang.IllegalArgumentException} naming the argument, thrown before
 *       anything is enqueued ({@link PrimitiveChecks} holds the shared checks). A closed buffer or stream
 *       is an {@link java.lang.IllegalStateException}. A failure the device reports while enqueueing is
 *       an {@link org.depengine.api.EngineException}; one it reports later surfaces through the stream
 *       ({@link org.depengine.api.device.Stream#takeAsyncError()}, or the engine's failure of the op).</li>
 *   <li><b>Aliasing.</b> Element-wise outputs may be the same buffer as an input (each element is read
 *       before it is written); other overlaps are stated per method.</li>
 *   <li><b>Precision.</b> Devices may sum in a different order (tiled, tree-reduced), so results agree
 *       with a sequential reference within float rounding, not bit for bit.</li>
 *   <li><b>Threads.</b> Primitive objects are stateless and thread-safe; a stream is driven by one
 *       thread at a time, as {@link org.depengine.api.device.Stream} says.</li>
 * </ul>
 *
 * <p>A device that lacks a primitive returns {@link java.util.Optional#empty()} from
 * {@code primitive}; {@link org.depengine.api.device.Device#requirePrimitive(Class)} turns that into an
 * {@link java.lang.UnsupportedOperationException} naming the device and the primitive.
 */
package org.depengine.api.device.primitive;
