package org.depengine.profiler;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Device;
import org.depengine.api.device.Stream;
import org.depengine.api.device.SynchronousDevice;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;

/** Synthetic engine pieces to drive a Profiler directly. */
final class Fakes {
    private Fakes() {
    }

    static VarHandle var(String name) {
        return new VarHandle() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public long version() {
                return 0;
            }
        };
    }

    /** A mutable OpInfo: tests set what an engine would report. */
    static final class FakeOp implements OpInfo {
        long id;
        String name;
        FnProperty property = FnProperty.NORMAL;
        int priority;
        Context context = Context.cpu();
        List<VarHandle> reads = List.of();
        List<VarHandle> writes = List.of();
        boolean profiling = true;
        Stream stream;
        Outcome outcome;
        Throwable failure;
        Map<String, Object> args = Map.of();
        boolean named = true;

        FakeOp(long id, String name) {
            this.id = id;
            this.name = name;
        }

        FakeOp reads(VarHandle... v) {
            reads = List.of(v);
            return this;
        }

        FakeOp writes(VarHandle... v) {
            writes = List.of(v);
            return this;
        }

        @Override
        public long id() {
            return id;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean named() {
            return named;
        }

        @Override
        public FnProperty property() {
            return property;
        }

        @Override
        public int priority() {
            return priority;
        }

        @Override
        public Context context() {
            return context;
        }

        @Override
        public List<VarHandle> reads() {
            return reads;
        }

        @Override
        public List<VarHandle> writes() {
            return writes;
        }

        @Override
        public boolean profiling() {
            return profiling;
        }

        @Override
        public Stream stream() {
            return stream;
        }

        @Override
        public Outcome outcome() {
            return outcome;
        }

        @Override
        public Throwable failure() {
            return failure;
        }

        @Override
        public Map<String, Object> args() {
            return args;
        }
    }

    /** Runs an op's whole life on the calling thread: ready, started, [launched,] finished. */
    static void run(OpListener l, FakeOp op, long ready, long start, long launched, long end) {
        l.pushed(op, ready);
        l.ready(op, ready);
        l.started(op, start);
        if (launched >= 0) {
            l.launched(op, launched);
        }
        op.outcome = OpInfo.Outcome.DONE;
        l.finished(op, end);
    }

    /** Runs {@code body} on a new thread of that name and waits for it. */
    static void onThread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A device of {@code ctx} built on the API's synchronous skeleton: its streams are real {@code SynchronousStream}s. */
    static Device device(Context ctx) {
        return new SynchronousDevice(ctx, "fake " + ctx) {
        };
    }

    /** An Engine that only keeps its listeners (every other method throws). */
    static final class ListenerSink {
        final List<OpListener> listeners = new CopyOnWriteArrayList<>();
        final Engine engine;

        ListenerSink(String name) {
            engine = (Engine) Proxy.newProxyInstance(Fakes.class.getClassLoader(), new Class<?>[] {Engine.class},
                    (proxy, m, args) -> {
                        switch (m.getName()) {
                            case "addListener":
                                listeners.add((OpListener) args[0]);
                                return null;
                            case "removeListener":
                                listeners.remove(args[0]);
                                return null;
                            case "name":
                                return name;
                            case "isClosed":
                                return false;
                            case "hashCode":
                                return System.identityHashCode(proxy);
                            case "equals":
                                return proxy == args[0];
                            case "toString":
                                return "fake engine " + name;
                            default:
                                throw new UnsupportedOperationException(m.getName());
                        }
                    });
        }
    }
}
