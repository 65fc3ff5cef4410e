package org.depengine.examples.minimal.launch;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Devices;

/**
 * Run in a child JVM by {@code ModulePathTest}, with the plugin on the module path: pushes a chain of ops
 * to {@code minimal:0} and {@code minimal:1} and prints what it saw. In its own package so that it can run
 * from the class path while the plugin's package is in a named module.
 */
public final class ModulePathMain {
    private ModulePathMain() {
    }

    public static void main(String[] args) {
        System.out.println("module=" + Devices.provider("minimal").getClass().getModule().getName());
        System.out.println("probe=" + Devices.availability("minimal"));
        long[] value = {1};
        try (Engine engine = Engine.create("perdevice")) {
            VarHandle v = engine.newVariable("v");
            for (int i = 0; i < 10; i++) {
                int step = i;
                Context ctx = Context.of("minimal", i % 2);
                engine.pushSync(rc -> value[0] = value[0] * 3 + step + rc.context().deviceId(), ctx, List.of(),
                        List.of(v));
            }
            engine.waitForAll();
        }
        System.out.println("value=" + value[0]);
        System.out.println("end");
    }
}
