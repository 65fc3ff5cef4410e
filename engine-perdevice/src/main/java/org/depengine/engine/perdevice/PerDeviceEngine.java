package org.depengine.engine.perdevice;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.device.StreamKind;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.AbstractEngine;
import org.depengine.core.DispatchPolicy;
import org.depengine.core.EngineRuntime;
import org.depengine.core.device.EngineDevice;
import org.depengine.core.exec.WorkerGroup;
import org.depengine.core.tracker.OpBlock;

/**
 * MXNet's ThreadedEnginePerDevice, with OneFlow's stream ownership:
 * <ul>
 *   <li>CPU: a worker group per CPU device id ({@code depengine.cpu.workers} threads, default the number of
 *   cores), made on first use and kept in a map by id (ids below 64 also in a small array, for a
 *   lookup without boxing), so any id up to {@link Integer#MAX_VALUE} works; {@link FnProperty#CPU_PRIORITIZED} ops go to one priority group shared
 *   by all CPU ids ({@code depengine.cpu.priorityWorkers} threads, default 2): higher priority first, push
 *   order among equals.</li>
 *   <li>Other devices, per device on first use: compute workers ({@code depengine.device.workers}, default 2)
 *   each owning a compute stream; host-to-device and device-to-host copy workers
 *   ({@code depengine.device.copyWorkers} each, default 1) each owning a copy stream of its direction; a
 *   priority group ({@code depengine.device.priorityWorkers}, default 1) with its own compute streams for
 *   {@link FnProperty#DEVICE_PRIORITIZED}.</li>
 *   <li>{@link FnProperty#ASYNC} and {@link FnProperty#DELETE_VAR} ops ready at push time run inline on the pusher.</li>
 *   <li>Device ops release their variables when launched (unless {@code depengine.device.releaseAtLaunch}
 *   is false): a successor on the same stream starts at once, one on another stream of the same device
 *   waits on the device, and CPU successors wait for done. The first successor a device worker's op
 *   releases for the worker's own group runs next on that worker, hence on the same stream; the others
 *   go to the group's queue and may start on another worker's stream, where they wait on the device.</li>
 * </ul>
 * Every setting is read once, when the engine is created.
 */
final class PerDeviceEngine extends AbstractEngine {
    PerDeviceEngine(EngineConfig config) {
        super(PerDeviceEngineProvider.NAME, config, Policy::new);
    }

    /** Where a perdevice engine's ready op runs: its device's (or CPU id's) group for its property. */
    private static final class Policy implements DispatchPolicy {
        private static final long JOIN_MILLIS = 10_000;

        private final EngineRuntime runtime;
        private final int cpuWorkers;
        private final int cpuPriorityWorkers;
        private final int deviceWorkers;
        private final int deviceCopyWorkers;
        private final int devicePriorityWorkers;
        private final boolean releaseAtLaunch;
        private final ConcurrentHashMap<Integer, WorkerGroup> cpuGroups = new ConcurrentHashMap<>();
        private final ConcurrentHashMap<Context, DeviceGroups> deviceGroups = new ConcurrentHashMap<>();
        private volatile WorkerGroup cpuPriority;
        // The CPU groups of small ids (below DENSE_CPU_IDS), for a lookup without hashing or boxing on
        // every push; larger ids, which Context.cpu allows up to Integer.MAX_VALUE, are looked up in
        // cpuGroups only (a dense array sized by the id would not fit in memory).
        private static final int DENSE_CPU_IDS = 64;
        private volatile WorkerGroup[] cpuById = new WorkerGroup[0];

        /** The roles of a non-CPU device's worker groups. */
        private enum Role {
            COMPUTE("compute", StreamKind.COMPUTE, false),
            H2D("h2d", StreamKind.HOST_TO_DEVICE, false),
            D2H("d2h", StreamKind.DEVICE_TO_HOST, false),
            PRIORITY("priority", StreamKind.COMPUTE, true);

            final String label;
            final StreamKind kind;
            final boolean byPriority;

            Role(String label, StreamKind kind, boolean byPriority) {
                this.label = label;
                this.kind = kind;
                this.byPriority = byPriority;
            }

            static Role of(FnProperty prop) {
                switch (prop) {
                    case COPY_TO_DEVICE:
                        return H2D;
                    case COPY_FROM_DEVICE:
                        return D2H;
                    case DEVICE_PRIORITIZED:
                        return PRIORITY;
                    default:
                        return COMPUTE;
                }
            }
        }

        /** The worker groups of one non-CPU device, each made on first use; each worker owns a stream. */
        private final class DeviceGroups {
            private final EngineDevice slot;
            private final AtomicReferenceArray<WorkerGroup> groups = new AtomicReferenceArray<>(Role.values().length);

            DeviceGroups(EngineDevice slot) {
                this.slot = slot;
            }

            WorkerGroup forProperty(FnProperty prop) {
                Role role = Role.of(prop);
                WorkerGroup g = groups.get(role.ordinal());
                return g != null ? g : make(role);
            }

            private synchronized WorkerGroup make(Role role) {
                WorkerGroup g = groups.get(role.ordinal());
                if (g == null) {
                    Context c = slot.context();
                    int threads = role == Role.COMPUTE ? deviceWorkers
                            : role == Role.PRIORITY ? devicePriorityWorkers : deviceCopyWorkers;
                    g = new WorkerGroup(runtime.engine(), runtime.threadName(c.deviceType() + c.deviceId() + "-" + role.label),
                            threads, role.byPriority, runtime, i -> slot.openWorkerStream(role.kind), runtime::refuse);
                    groups.set(role.ordinal(), g);
                }
                return g;
            }

            void collect(List<WorkerGroup> out) {
                for (int i = 0; i < groups.length(); i++) {
                    if (groups.get(i) != null) {
                        out.add(groups.get(i));
                    }
                }
            }
        }

        Policy(EngineRuntime runtime) {
            this.runtime = runtime;
            EngineConfig config = runtime.config();
            cpuWorkers = config.get(PerDeviceSettings.CPU_WORKERS);
            cpuPriorityWorkers = config.get(PerDeviceSettings.CPU_PRIORITY_WORKERS);
            deviceWorkers = config.get(PerDeviceSettings.DEVICE_WORKERS);
            deviceCopyWorkers = config.get(PerDeviceSettings.DEVICE_COPY_WORKERS);
            devicePriorityWorkers = config.get(PerDeviceSettings.DEVICE_PRIORITY_WORKERS);
            releaseAtLaunch = config.get(PerDeviceSettings.RELEASE_AT_LAUNCH);
        }

        @Override
        public void route(OpBlock op, EngineDevice slot) {
            if (slot != null) {
                op.setRoute(group(op.context(), op.def().prop(), slot));
            }
        }

        private WorkerGroup group(Context ctx, FnProperty prop, EngineDevice slot) {
            if (ctx.isCpu()) {
                if (prop == FnProperty.CPU_PRIORITIZED) {
                    WorkerGroup p = cpuPriority;
                    return p != null ? p : cpuPriorityGroup();
                }
                int id = ctx.deviceId();
                WorkerGroup[] byId = cpuById;
                WorkerGroup g = id < byId.length ? byId[id] : id < DENSE_CPU_IDS ? null : cpuGroups.get(id);
                return g != null ? g : cpuGroup(id);
            }
            DeviceGroups d = deviceGroups.get(ctx);
            if (d == null) {
                d = deviceGroups.computeIfAbsent(ctx, c -> new DeviceGroups(slot));
            }
            return d.forProperty(prop);
        }

        /** Makes the worker group of a CPU id on first use; the lookup array is replaced, never mutated. */
        private synchronized WorkerGroup cpuGroup(int id) {
            WorkerGroup g = cpuGroups.computeIfAbsent(id, i ->
                    new WorkerGroup(runtime.engine(), runtime.threadName("cpu" + i + "-worker"), cpuWorkers, false, runtime));
            WorkerGroup[] byId = cpuById;
            if (id < DENSE_CPU_IDS && (id >= byId.length || byId[id] == null)) {
                WorkerGroup[] next = Arrays.copyOf(byId, Math.max(byId.length, id + 1));
                next[id] = g;
                cpuById = next;
            }
            return g;
        }

        private synchronized WorkerGroup cpuPriorityGroup() {
            if (cpuPriority == null) {
                cpuPriority = new WorkerGroup(runtime.engine(), runtime.threadName("cpu-priority"), cpuPriorityWorkers, true, runtime);
            }
            return cpuPriority;
        }

        @Override
        public void dispatch(OpBlock op, boolean onPusher) {
            FnProperty prop = op.def().prop();
            if (onPusher && (prop == FnProperty.ASYNC || prop == FnProperty.DELETE_VAR)) {
                runtime.run(op, null);
            } else {
                op.route().submit(op);
            }
        }

        /**
         * True unless {@code depengine.device.releaseAtLaunch} is false: every device worker owns its stream, so
         * OneFlow's scheduling of same-stream successors applies. False gives MXNet's behaviour (successors
         * wait for done), for comparison.
         */
        @Override
        public boolean releasesAtLaunch() {
            return releaseAtLaunch;
        }

        @Override
        public void stop() {
            for (WorkerGroup g : groups()) {
                g.shutdown(JOIN_MILLIS);
            }
        }

        @Override
        public void addCounters(Map<String, Long> counters) {
            WorkerGroup.addCounters(groups(), counters);
        }

        /** Every worker group made so far. */
        private List<WorkerGroup> groups() {
            List<WorkerGroup> groups = new ArrayList<>(cpuGroups.values());
            WorkerGroup p = cpuPriority;
            if (p != null) {
                groups.add(p);
            }
            for (DeviceGroups d : deviceGroups.values()) {
                d.collect(groups);
            }
            return groups;
        }
    }
}
