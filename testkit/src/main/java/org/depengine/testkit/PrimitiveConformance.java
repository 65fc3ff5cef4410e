package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Event;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.depengine.api.device.primitive.Activation;
import org.depengine.api.device.primitive.Elementwise;
import org.depengine.api.device.primitive.Fill;
import org.depengine.api.device.primitive.Matmul;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.device.primitive.Primitive;
import org.depengine.api.device.primitive.Reduce;
import org.depengine.api.device.primitive.SoftmaxCrossEntropy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The device-primitive conformance suite: every primitive of
 * {@code org.depengine.api.device.primitive} is run on the device under test, on random inputs of
 * several shapes (odd sizes that are not multiples of any tile, transposes, 1 × 1, empty), and compared
 * with a plain double-precision reference on the host within float tolerance; argument checks are
 * exercised with a stub device. Ops are enqueued back to back on one stream of the device and only the
 * final read synchronises, so the device's ordering of its own work is exercised too.
 *
 * <p>A device module extends this class and names its device in {@link #device()}, where it may call
 * {@link org.junit.jupiter.api.Assumptions#assumeTrue(boolean, String)} when the device is missing here.
 */
public abstract class PrimitiveConformance {
    /** The device under test; called before each test. */
    protected abstract Device device();

    /**
     * Another device of the same type, if there is one (e.g. {@code cpu:1}), for the checks that a buffer
     * or stream of a sibling device is refused.
     */
    protected Optional<Device> siblingDevice() {
        return Optional.empty();
    }

    private static final List<Class<? extends Primitive>> ALL = List.of(Memcpy.class, Fill.class, Matmul.class,
            Elementwise.class, Activation.class, SoftmaxCrossEntropy.class, Reduce.class);

    private Device dev;
    private org.depengine.api.device.Stream stream;
    private final List<DeviceBuffer> buffers = new ArrayList<>();
    /** Host buffers of enqueued copies: kept reachable until the stream is synchronised. */
    private final List<ByteBuffer> hosts = new ArrayList<>();
    private final Random rnd = new Random(20240611);

    @BeforeEach
    void openStream() {
        dev = device();
        stream = dev.createStream(StreamKind.COMPUTE);
    }

    @AfterEach
    void closeStream() {
        if (stream != null) {
            stream.synchronize();
            buffers.forEach(DeviceBuffer::close);
            stream.close();
        }
    }

    // ------------------------------------------------------------------ discovery

    @Test
    void everyPrimitiveIsOfferedAndStable() {
        for (Class<? extends Primitive> type : ALL) {
            Optional<? extends Primitive> p = dev.primitive(type);
            assertTrue(p.isPresent(), dev.context() + " should offer " + type.getSimpleName());
            assertSame(p.get(), dev.requirePrimitive(type), "same instance on every call");
        }
    }

    @Test
    void aDeviceWithoutPrimitivesSaysWhichIsMissing() {
        StubDevice stub = new StubDevice();
        assertTrue(stub.primitive(Matmul.class).isEmpty());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> stub.requirePrimitive(Matmul.class));
        assertTrue(e.getMessage().contains("stub:0") && e.getMessage().contains("Matmul"), e.getMessage());
    }

    // ------------------------------------------------------------------ Memcpy

    @Test
    void copiesRoundTripAtAlignedAndUnalignedByteOffsets() {
        Memcpy copy = dev.requirePrimitive(Memcpy.class);
        byte[] expected = new byte[64];
        rnd.nextBytes(expected);
        DeviceBuffer buf = track(dev.allocate(expected.length));
        copy.hostToDevice(stream, host(expected), buf, 0);
        byte[] part = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        copy.hostToDevice(stream, host(part), buf, 8);
        System.arraycopy(part, 0, expected, 8, part.length);
        byte[] odd = {-7, -8, -9};
        copy.hostToDevice(stream, host(odd), buf, 30);
        System.arraycopy(odd, 0, expected, 30, odd.length);
        assertArrayEquals(expected, readBytes(buf, 0, expected.length));
        assertArrayEquals(Arrays.copyOfRange(expected, 5, 12), readBytes(buf, 5, 7), "unaligned read");
    }

    @Test
    void hostBufferPositionAndLimitAreNotMoved() {
        Memcpy copy = dev.requirePrimitive(Memcpy.class);
        DeviceBuffer buf = track(dev.allocate(16));
        ByteBuffer src = hostBuffer(24);
        for (int i = 0; i < 24; i++) {
            src.put(i, (byte) i);
        }
        src.position(4).limit(20);
        copy.hostToDevice(stream, src, buf, 0);
        ByteBuffer dst = hostBuffer(24);
        dst.position(8).limit(12);
        copy.deviceToHost(stream, buf, 2, dst);
        stream.synchronize();
        assertEquals(4, src.position());
        assertEquals(20, src.limit());
        assertEquals(8, dst.position());
        assertEquals(12, dst.limit());
        for (int i = 0; i < 4; i++) {
            assertEquals((byte) (4 + 2 + i), dst.get(8 + i), "byte " + i);
        }
    }

    @Test
    void deviceToDeviceCopiesBetweenAndWithinBuffers() {
        Memcpy copy = dev.requirePrimitive(Memcpy.class);
        byte[] a = new byte[40];
        rnd.nextBytes(a);
        byte[] b = new byte[40];
        rnd.nextBytes(b);
        DeviceBuffer x = upload(a);
        DeviceBuffer y = upload(b);
        copy.deviceToDevice(stream, x, 4, y, 12, 16);
        System.arraycopy(a, 4, b, 12, 16);
        copy.deviceToDevice(stream, y, 1, y, 30, 7); // disjoint ranges of one buffer, unaligned
        System.arraycopy(b, 1, b, 30, 7);
        copy.deviceToDevice(stream, x, 0, y, 0, 0);
        assertArrayEquals(b, readBytes(y, 0, 40));
        assertArrayEquals(a, readBytes(x, 0, 40), "source unchanged");
    }

    @Test
    void badCopiesAreRefusedBeforeAnythingIsEnqueued() {
        Memcpy copy = dev.requirePrimitive(Memcpy.class);
        float[] before = random(4);
        DeviceBuffer buf = upload(before); // 16 bytes
        ByteBuffer source = hostBuffer(8);
        source.asFloatBuffer().put(new float[] {7f, 7f});
        ByteBuffer target = hostBuffer(4);
        target.putFloat(0, 7f);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> copy.hostToDevice(stream, ByteBuffer.allocate(4), buf, 0));
        assertTrue(e.getMessage().contains("direct"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> copy.hostToDevice(stream, source, buf, 12));
        assertTrue(e.getMessage().contains("'dst'") && e.getMessage().contains("16 bytes"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> copy.deviceToHost(stream, buf, -1, target));
        assertTrue(e.getMessage().contains(">= 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> copy.deviceToDevice(stream, buf, 0, buf, 4, 8));
        assertTrue(e.getMessage().contains("overlap"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> copy.deviceToDevice(stream, buf, 0, buf, 8, -1));
        assertThrows(NullPointerException.class, () -> copy.hostToDevice(stream, null, buf, 0));
        // Nothing was enqueued: once the stream is done, neither the buffer nor the host side changed.
        stream.synchronize();
        assertArrayEquals(before, read(buf, 4), "a refused copy wrote the device buffer");
        assertEquals(7f, target.getFloat(0), "a refused copy wrote the host buffer");
    }

    // ------------------------------------------------------------------ Fill

    @Test
    void fillSetsExactlyTheRange() {
        Fill fill = dev.requirePrimitive(Fill.class);
        float[] v = random(100);
        DeviceBuffer x = upload(v);
        fill.fill(stream, x, 13, 50, 2.5f);
        Arrays.fill(v, 13, 63, 2.5f);
        fill.fill(stream, x, 99, 0, -1f);
        fill.fill(stream, x, 99, 1, -0.5f);
        v[99] = -0.5f;
        assertArrayEquals(v, read(x, 100));
        fill.fill(stream, x, 0, 100, 0f);
        assertArrayEquals(new float[100], read(x, 100));
        assertThrows(IllegalArgumentException.class, () -> fill.fill(stream, x, 60, 41, 1f));
        assertThrows(IllegalArgumentException.class, () -> fill.fill(stream, x, 0, -1, 1f));
    }

    // ------------------------------------------------------------------ Matmul

    static Stream<Arguments> sgemmShapes() {
        int[][] shapes = {{1, 1, 1}, {2, 3, 4}, {17, 33, 65}, {64, 64, 64}, {65, 31, 129}, {128, 1, 300}, {1, 200, 3},
            {33, 70, 17}};
        List<Arguments> cases = new ArrayList<>();
        for (int[] s : shapes) {
            for (int t = 0; t < 4; t++) {
                cases.add(Arguments.of(s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "m={0} n={1} k={2} transA={3} transB={4}")
    @MethodSource("sgemmShapes")
    void sgemmMatchesTheReference(int m, int n, int k, boolean transA, boolean transB) {
        Matmul mm = dev.requirePrimitive(Matmul.class);
        float[] a = random(m * k);
        float[] b = random(k * n);
        float[] c = random(m * n);
        DeviceBuffer da = upload(a);
        DeviceBuffer db = upload(b);
        DeviceBuffer dc = upload(c);
        mm.sgemm(stream, transA, transB, m, n, k, 1.25f, da, db, 0.5f, dc);
        assertClose(refSgemm(transA, transB, m, n, k, 1.25f, a, b, 0.5f, c), read(dc, m * n),
                absScale(transA, transB, m, n, k, 1.25f, a, b, 0.5f, c), 2e-5f * k + 1e-6f);
        // Again with beta = 0 over a C full of NaN: the old C must not be read.
        float[] nan = new float[m * n];
        Arrays.fill(nan, Float.NaN);
        DeviceBuffer dn = upload(nan);
        mm.sgemm(stream, transA, transB, m, n, k, 1f, da, db, 0f, dn);
        float[] zero = new float[m * n];
        assertClose(refSgemm(transA, transB, m, n, k, 1f, a, b, 0f, zero), read(dn, m * n),
                absScale(transA, transB, m, n, k, 1f, a, b, 0f, zero), 2e-5f * k + 1e-6f);
    }

    @Test
    void sgemmEdgeCases() {
        Matmul mm = dev.requirePrimitive(Matmul.class);
        float[] c = random(12);
        DeviceBuffer dc = upload(c);
        DeviceBuffer none = alloc(0);
        // k = 0: C = beta·C.
        mm.sgemm(stream, false, false, 3, 4, 0, 1f, none, none, 2f, dc);
        float[] twice = new float[12];
        for (int i = 0; i < 12; i++) {
            twice[i] = 2f * c[i];
        }
        assertArrayEquals(twice, read(dc, 12));
        // alpha = 0: C = beta·C, A and B are not needed to be finite.
        float[] a = new float[16];
        Arrays.fill(a, 1f);
        DeviceBuffer ones = upload(a);
        mm.sgemm(stream, false, false, 3, 4, 4, 0f, ones, ones, 0.5f, dc);
        assertArrayEquals(c, read(dc, 12));
        // m = 0 or n = 0: nothing happens.
        mm.sgemm(stream, false, false, 0, 4, 4, 1f, none, ones, 0f, dc);
        mm.sgemm(stream, true, true, 3, 0, 4, 1f, ones, none, 0f, dc);
        assertArrayEquals(c, read(dc, 12));
    }

    @Test
    void sgemmRefusesBadArguments() {
        Matmul mm = dev.requirePrimitive(Matmul.class);
        DeviceBuffer a = alloc(6);
        DeviceBuffer b = alloc(6);
        DeviceBuffer c = alloc(4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> mm.sgemm(stream, false, false, 2, 2, 4, 1f, a, b, 0f, c));
        assertTrue(e.getMessage().contains("'a'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mm.sgemm(stream, false, false, 2, 3, 2, 1f, a, b, 0f, c));
        assertTrue(e.getMessage().contains("'c'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mm.sgemm(stream, false, false, -1, 2, 3, 1f, a, b, 0f, c));
        assertTrue(e.getMessage().contains("m must be >= 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mm.sgemm(stream, false, false, 1, 1, 1, 1f, a, b, 0f, a));
        assertTrue(e.getMessage().contains("different buffers"), e.getMessage());
    }

    // ------------------------------------------------------------------ Elementwise

    @ParameterizedTest(name = "n={0}")
    @ValueSource(ints = {0, 1, 7, 1000, 4099})
    void elementwiseOpsMatchTheReference(int n) {
        Elementwise ew = dev.requirePrimitive(Elementwise.class);
        float[] x = random(n);
        float[] y = random(n);
        DeviceBuffer dx = upload(x);
        DeviceBuffer dy = upload(y);
        DeviceBuffer out = alloc(n);
        float[] sum = new float[n];
        float[] prod = new float[n];
        float[] axpy = new float[n];
        float[] scaled = new float[n];
        float[] scale = new float[n];
        for (int i = 0; i < n; i++) {
            sum[i] = x[i] + y[i];
            prod[i] = x[i] * y[i];
            axpy[i] = y[i] + 0.75f * x[i];
            scaled[i] = -3f * x[i];
            scale[i] = Math.abs(x[i]) + Math.abs(y[i]);
        }
        ew.add(stream, n, dx, dy, out);
        assertClose(sum, read(out, n), scale, 1e-6f);
        ew.mul(stream, n, dx, dy, out);
        assertClose(prod, read(out, n), scale, 1e-6f);
        ew.scale(stream, n, -3f, dx, out);
        assertClose(scaled, read(out, n), scale, 1e-6f);
        ew.axpy(stream, n, 0.75f, dx, dy);
        assertClose(axpy, read(dy, n), scale, 1e-6f);
        // In place: out is an input.
        ew.add(stream, n, dx, dx, dx);
        float[] doubled = new float[n];
        for (int i = 0; i < n; i++) {
            doubled[i] = 2f * x[i];
        }
        assertArrayEquals(doubled, read(dx, n));
    }

    @ParameterizedTest(name = "{0}x{1}")
    @MethodSource("matrixShapes")
    void addRowVectorAddsTheBiasToEveryRow(int rows, int cols) {
        Elementwise ew = dev.requirePrimitive(Elementwise.class);
        float[] x = random(rows * cols);
        float[] b = random(cols);
        DeviceBuffer dx = upload(x);
        ew.addRowVector(stream, rows, cols, dx, upload(b));
        float[] expected = new float[rows * cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                expected[i * cols + j] = x[i * cols + j] + b[j];
            }
        }
        assertArrayEquals(expected, read(dx, rows * cols));
    }

    @Test
    void elementwiseRefusesBadArguments() {
        Elementwise ew = dev.requirePrimitive(Elementwise.class);
        DeviceBuffer x = alloc(8);
        DeviceBuffer y = alloc(4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ew.add(stream, 8, x, y, x));
        assertTrue(e.getMessage().contains("'y'") && e.getMessage().contains("holds 4"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ew.axpy(stream, -1, 1f, x, y));
        assertTrue(e.getMessage().contains("n must be >= 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ew.addRowVector(stream, 2, 4, x, x));
        assertThrows(IllegalArgumentException.class, () -> ew.addRowVector(stream, 2, 5, x, y));
        assertThrows(NullPointerException.class, () -> ew.scale(stream, 1, 1f, null, x));
    }

    // ------------------------------------------------------------------ Activation

    @ParameterizedTest(name = "n={0}")
    @ValueSource(ints = {0, 1, 7, 1000, 4099})
    void reluAndItsGradient(int n) {
        Activation act = dev.requirePrimitive(Activation.class);
        float[] x = random(n);
        for (int i = 0; i < n; i += 5) {
            x[i] = 0f;
        }
        float[] dy = random(n);
        DeviceBuffer dx = upload(x);
        DeviceBuffer y = alloc(n);
        DeviceBuffer ddy = upload(dy);
        DeviceBuffer grad = alloc(n);
        act.relu(stream, n, dx, y);
        act.reluGrad(stream, n, y, ddy, grad);
        float[] ey = new float[n];
        float[] eg = new float[n];
        for (int i = 0; i < n; i++) {
            ey[i] = x[i] > 0 ? x[i] : 0f;
            eg[i] = x[i] > 0 ? dy[i] : 0f;
        }
        assertArrayEquals(ey, read(y, n));
        assertArrayEquals(eg, read(grad, n));
        act.relu(stream, n, dx, dx); // in place
        assertArrayEquals(ey, read(dx, n));
    }

    // ------------------------------------------------------------------ SoftmaxCrossEntropy

    static Stream<Arguments> softmaxShapes() {
        return Stream.of(Arguments.of(1, 1), Arguments.of(3, 10), Arguments.of(37, 129), Arguments.of(8, 1000),
                Arguments.of(2, 4097), Arguments.of(0, 5));
    }

    @ParameterizedTest(name = "{0}x{1}")
    @MethodSource("softmaxShapes")
    void softmaxCrossEntropyMatchesTheReference(int rows, int cols) {
        SoftmaxCrossEntropy sce = dev.requirePrimitive(SoftmaxCrossEntropy.class);
        float[] logits = random(rows * cols);
        for (int i = 0; i < logits.length; i++) {
            logits[i] *= 8f;
        }
        int[] labels = new int[rows];
        for (int i = 0; i < rows; i++) {
            labels[i] = rnd.nextInt(cols);
        }
        float scale = rows == 0 ? 1f : 1f / rows;
        DeviceBuffer dl = upload(logits);
        DeviceBuffer lab = uploadInts(labels);
        DeviceBuffer loss = alloc(rows);
        DeviceBuffer grad = alloc(rows * cols);
        sce.lossAndGradient(stream, rows, cols, dl, lab, loss, grad, scale);
        float[][] ref = refSoftmaxCe(rows, cols, logits, labels, scale);
        assertClose(ref[0], read(loss, rows), ones(rows), 1e-5f);
        assertClose(ref[1], read(grad, rows * cols), ones(rows * cols), 1e-6f);
        // Loss only, then the gradient in place of the logits.
        DeviceBuffer loss2 = alloc(rows);
        sce.lossAndGradient(stream, rows, cols, dl, lab, loss2, null, scale);
        assertClose(ref[0], read(loss2, rows), ones(rows), 1e-5f);
        sce.lossAndGradient(stream, rows, cols, dl, lab, loss2, dl, scale);
        assertClose(ref[1], read(dl, rows * cols), ones(rows * cols), 1e-6f);
    }

    @Test
    void softmaxIsStableForLargeLogitsAndMarksBadLabels() {
        SoftmaxCrossEntropy sce = dev.requirePrimitive(SoftmaxCrossEntropy.class);
        int rows = 4;
        int cols = 3;
        float[] logits = {1000f, 0f, -1000f, 88f, 89f, 90f, 1f, 2f, 3f, 1f, 2f, 3f};
        int[] labels = {0, 2, -1, 3};
        DeviceBuffer loss = alloc(rows);
        DeviceBuffer grad = alloc(rows * cols);
        sce.lossAndGradient(stream, rows, cols, upload(logits), uploadInts(labels), loss, grad, 1f);
        float[] l = read(loss, rows);
        float[] g = read(grad, rows * cols);
        float[][] ref = refSoftmaxCe(2, cols, Arrays.copyOf(logits, 6), new int[] {0, 2}, 1f);
        assertClose(ref[0], Arrays.copyOf(l, 2), ones(2), 1e-5f);
        assertClose(ref[1], Arrays.copyOf(g, 6), ones(6), 1e-6f);
        for (int i = 2; i < 4; i++) {
            assertTrue(Float.isNaN(l[i]), "loss of row " + i + " with a bad label: " + l[i]);
            for (int j = 0; j < cols; j++) {
                assertTrue(Float.isNaN(g[i * cols + j]), "gradient of row " + i + " with a bad label");
            }
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> sce.lossAndGradient(stream, 2, 0, grad, loss, loss, null, 1f));
        assertTrue(e.getMessage().contains("cols"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> sce.lossAndGradient(stream, 4, 3, grad, loss, grad, null, 1f));
        assertThrows(IllegalArgumentException.class,
                () -> sce.lossAndGradient(stream, 5, 3, grad, loss, loss, null, 1f));
    }

    // ------------------------------------------------------------------ Reduce

    static Stream<Arguments> matrixShapes() {
        return Stream.of(Arguments.of(1, 1), Arguments.of(5, 0), Arguments.of(0, 5), Arguments.of(3, 7),
                Arguments.of(33, 1025), Arguments.of(1000, 3), Arguments.of(64, 256));
    }

    @ParameterizedTest(name = "{0}x{1}")
    @MethodSource("matrixShapes")
    void rowAndColumnSumsMatchTheReference(int rows, int cols) {
        Reduce red = dev.requirePrimitive(Reduce.class);
        float[] x = random(rows * cols);
        DeviceBuffer dx = upload(x);
        float[] garbage = random(Math.max(rows, cols));
        DeviceBuffer rs = upload(garbage);
        DeviceBuffer cs = upload(garbage);
        red.rowSums(stream, rows, cols, dx, rs);
        red.columnSums(stream, rows, cols, dx, cs);
        float[] er = new float[rows];
        float[] ar = new float[rows];
        float[] ec = new float[cols];
        float[] ac = new float[cols];
        double[] rowSum = new double[rows];
        double[] colSum = new double[cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                float v = x[i * cols + j];
                rowSum[i] += v;
                colSum[j] += v;
                ar[i] += Math.abs(v);
                ac[j] += Math.abs(v);
            }
        }
        for (int i = 0; i < rows; i++) {
            er[i] = (float) rowSum[i];
        }
        for (int j = 0; j < cols; j++) {
            ec[j] = (float) colSum[j];
        }
        assertClose(er, read(rs, rows), ar, 1e-5f);
        assertClose(ec, read(cs, cols), ac, 1e-5f);
        assertThrows(IllegalArgumentException.class, () -> red.rowSums(stream, rows, cols, dx, dx));
    }

    // ------------------------------------------------------------------ foreign buffers and streams

    @Test
    void buffersAndStreamsOfOtherDevicesAreRefused() {
        Elementwise ew = dev.requirePrimitive(Elementwise.class);
        DeviceBuffer x = alloc(4);
        StubDevice stub = new StubDevice();
        DeviceBuffer foreign = stub.allocate(16);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ew.add(stream, 4, x, foreign, x));
        assertTrue(e.getMessage().contains("'y'") && e.getMessage().contains("stub:0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ew.add(stub.createStream(StreamKind.COMPUTE), 4, x, x, x));
        assertTrue(e.getMessage().contains("stream") && e.getMessage().contains(dev.context().toString()),
                e.getMessage());
        assertThrows(NullPointerException.class, () -> ew.add(null, 4, x, x, x));
        Optional<Device> sibling = siblingDevice();
        if (sibling.isPresent()) {
            Device other = sibling.get();
            DeviceBuffer theirs = track(other.allocate(16));
            e = assertThrows(IllegalArgumentException.class, () -> ew.add(stream, 4, x, theirs, x));
            assertTrue(e.getMessage().contains(other.context().toString()), e.getMessage());
            try (org.depengine.api.device.Stream s = other.createStream(StreamKind.COMPUTE)) {
                e = assertThrows(IllegalArgumentException.class, () -> ew.add(s, 4, x, x, x));
                assertTrue(e.getMessage().contains(other.context().toString()), e.getMessage());
            }
        }
    }

    @Test
    void aChainOfOpsRunsInStreamOrder() {
        // One small training-like step, enqueued back to back and synchronised once at the end:
        // h = relu(x·W + b); loss and dh from softmax cross-entropy; dW = xᵀ·dh; db = colsum(dh).
        int batch = 5;
        int in = 7;
        int out = 3;
        float[] x = random(batch * in);
        float[] w = random(in * out);
        float[] b = random(out);
        int[] labels = {0, 1, 2, 1, 0};
        DeviceBuffer dx = upload(x);
        DeviceBuffer dw = upload(w);
        DeviceBuffer db = upload(b);
        DeviceBuffer lab = uploadInts(labels);
        DeviceBuffer h = alloc(batch * out);
        DeviceBuffer loss = alloc(batch);
        DeviceBuffer dh = alloc(batch * out);
        DeviceBuffer gw = alloc(in * out);
        DeviceBuffer gb = alloc(out);
        dev.requirePrimitive(Fill.class).fill(stream, h, 0, batch * out, Float.NaN);
        dev.requirePrimitive(Matmul.class).sgemm(stream, false, false, batch, out, in, 1f, dx, dw, 0f, h);
        dev.requirePrimitive(Elementwise.class).addRowVector(stream, batch, out, h, db);
        dev.requirePrimitive(Activation.class).relu(stream, batch * out, h, h);
        dev.requirePrimitive(SoftmaxCrossEntropy.class).lossAndGradient(stream, batch, out, h, lab, loss, dh,
                1f / batch);
        dev.requirePrimitive(Matmul.class).sgemm(stream, true, false, in, out, batch, 1f, dx, dh, 0f, gw);
        dev.requirePrimitive(Reduce.class).columnSums(stream, batch, out, dh, gb);

        float[] eh = refSgemm(false, false, batch, out, in, 1f, x, w, 0f, new float[batch * out]);
        for (int i = 0; i < batch; i++) {
            for (int j = 0; j < out; j++) {
                float v = eh[i * out + j] + b[j];
                eh[i * out + j] = v > 0 ? v : 0f;
            }
        }
        float[][] ce = refSoftmaxCe(batch, out, eh, labels, 1f / batch);
        float[] egw = refSgemm(true, false, in, out, batch, 1f, x, ce[1], 0f, new float[in * out]);
        float[] egb = new float[out];
        for (int i = 0; i < batch; i++) {
            for (int j = 0; j < out; j++) {
                egb[j] += ce[1][i * out + j];
            }
        }
        assertClose(ce[0], read(loss, batch), ones(batch), 1e-4f);
        assertClose(egw, read(gw, in * out), ones(in * out), 1e-4f);
        assertClose(egb, read(gb, out), ones(out), 1e-4f);
    }

    // ------------------------------------------------------------------ helpers for subclasses too

    /** Allocates a buffer of {@code floats} floats (at least one, as some devices refuse empty buffers). */
    protected DeviceBuffer alloc(long floats) {
        return track(dev.allocate(Math.max(1, floats) * Float.BYTES));
    }

    /** A device buffer holding {@code v}, enqueued on the test stream. */
    protected DeviceBuffer upload(float[] v) {
        DeviceBuffer d = alloc(v.length);
        ByteBuffer h = hostBuffer(v.length * Float.BYTES);
        h.asFloatBuffer().put(v);
        dev.requirePrimitive(Memcpy.class).hostToDevice(stream, h, d, 0);
        return d;
    }

    /** The first {@code n} floats of {@code b}, after everything enqueued on the test stream is done. */
    protected float[] read(DeviceBuffer b, int n) {
        ByteBuffer h = hostBuffer(n * Float.BYTES);
        dev.requirePrimitive(Memcpy.class).deviceToHost(stream, b, 0, h);
        stream.synchronize();
        float[] out = new float[n];
        h.asFloatBuffer().get(out);
        return out;
    }

    private DeviceBuffer upload(byte[] v) {
        DeviceBuffer d = track(dev.allocate(v.length));
        dev.requirePrimitive(Memcpy.class).hostToDevice(stream, host(v), d, 0);
        return d;
    }

    private DeviceBuffer uploadInts(int[] v) {
        DeviceBuffer d = alloc(v.length);
        ByteBuffer h = hostBuffer(v.length * Integer.BYTES);
        h.asIntBuffer().put(v);
        dev.requirePrimitive(Memcpy.class).hostToDevice(stream, h, d, 0);
        return d;
    }

    private byte[] readBytes(DeviceBuffer b, long offset, int n) {
        ByteBuffer h = hostBuffer(n);
        dev.requirePrimitive(Memcpy.class).deviceToHost(stream, b, offset, h);
        stream.synchronize();
        byte[] out = new byte[n];
        h.get(0, out);
        return out;
    }

    private ByteBuffer host(byte[] v) {
        ByteBuffer h = hostBuffer(v.length);
        h.put(0, v);
        return h;
    }

    private ByteBuffer hostBuffer(int bytes) {
        ByteBuffer h = dev.allocateHost(Math.max(bytes, 1)).order(ByteOrder.nativeOrder());
        h.limit(bytes);
        hosts.add(h);
        return h;
    }

    private DeviceBuffer track(DeviceBuffer b) {
        buffers.add(b);
        return b;
    }

    private float[] random(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = rnd.nextFloat() * 2f - 1f;
        }
        return v;
    }

    private static float[] ones(int n) {
        float[] v = new float[n];
        Arrays.fill(v, 1f);
        return v;
    }

    /** Asserts |expected − actual| ≤ tol · (scale + 1) per element, naming the first bad index. */
    private static void assertClose(float[] expected, float[] actual, float[] scale, float tol) {
        assertEquals(expected.length, actual.length, "length");
        for (int i = 0; i < expected.length; i++) {
            float bound = tol * (scale[i] + 1f);
            if (!(Math.abs(expected[i] - actual[i]) <= bound)) {
                throw new AssertionError("element " + i + " of " + expected.length + ": expected " + expected[i]
                        + " but was " + actual[i] + " (tolerance " + bound + ")");
            }
        }
    }

    private static float opA(boolean transA, float[] a, int m, int k, int i, int p) {
        return transA ? a[p * m + i] : a[i * k + p];
    }

    private static float opB(boolean transB, float[] b, int n, int k, int p, int j) {
        return transB ? b[j * k + p] : b[p * n + j];
    }

    private static float[] refSgemm(boolean transA, boolean transB, int m, int n, int k, float alpha, float[] a,
            float[] b, float beta, float[] c) {
        float[] out = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    s += (double) opA(transA, a, m, k, i, p) * opB(transB, b, n, k, p, j);
                }
                out[i * n + j] = (float) (alpha * s + (beta == 0f ? 0.0 : (double) beta * c[i * n + j]));
            }
        }
        return out;
    }

    private static float[] absScale(boolean transA, boolean transB, int m, int n, int k, float alpha, float[] a,
            float[] b, float beta, float[] c) {
        float[] out = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    s += Math.abs((double) opA(transA, a, m, k, i, p) * opB(transB, b, n, k, p, j));
                }
                out[i * n + j] = (float) (Math.abs(alpha) * s + Math.abs(beta * c[i * n + j]));
            }
        }
        return out;
    }

    /** {loss[rows], dlogits[rows × cols]} in double precision. */
    private static float[][] refSoftmaxCe(int rows, int cols, float[] logits, int[] labels, float scale) {
        float[] loss = new float[rows];
        float[] grad = new float[rows * cols];
        for (int i = 0; i < rows; i++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < cols; j++) {
                max = Math.max(max, logits[i * cols + j]);
            }
            double sum = 0;
            for (int j = 0; j < cols; j++) {
                sum += Math.exp(logits[i * cols + j] - max);
            }
            loss[i] = (float) (Math.log(sum) - (logits[i * cols + labels[i]] - max));
            for (int j = 0; j < cols; j++) {
                double p = Math.exp(logits[i * cols + j] - max) / sum;
                grad[i * cols + j] = (float) ((p - (j == labels[i] ? 1 : 0)) * scale);
            }
        }
        return new float[][] {loss, grad};
    }

    // ------------------------------------------------------------------ a device of another type

    /** A device with no primitives and plain host memory, to hand out foreign buffers and streams. */
    private static final class StubDevice implements Device {
        private final Context ctx = Context.of("stub", 0);

        @Override
        public Context context() {
            return ctx;
        }

        @Override
        public String description() {
            return "stub device of the primitive conformance suite";
        }

        @Override
        public org.depengine.api.device.Stream createStream(StreamKind kind) {
            Device self = this;
            return new org.depengine.api.device.Stream() {
                @Override
                public Device device() {
                    return self;
                }

                @Override
                public StreamKind kind() {
                    return kind;
                }

                @Override
                public void bindToCurrentThread() {
                }

                @Override
                public Event record() {
                    throw new UnsupportedOperationException("stub");
                }

                @Override
                public void waitFor(Event event) {
                    throw new UnsupportedOperationException("stub");
                }

                @Override
                public void onComplete(Runnable callback) {
                    callback.run();
                }

                @Override
                public void synchronize() {
                }

                @Override
                public Throwable takeAsyncError() {
                    return null;
                }

                @Override
                public void close() {
                }

                @Override
                public String toString() {
                    return "stub:0/stream";
                }
            };
        }

        @Override
        public StreamPolicy policy(StreamKind kind) {
            return StreamPolicy.SYNCHRONOUS;
        }

        @Override
        public boolean supportsStreamWait() {
            return false;
        }

        @Override
        public DeviceBuffer allocate(long bytes) {
            Device self = this;
            return new DeviceBuffer() {
                @Override
                public Device device() {
                    return self;
                }

                @Override
                public long size() {
                    return bytes;
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
