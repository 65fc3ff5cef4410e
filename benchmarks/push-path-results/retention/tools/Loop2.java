import java.util.List;
import org.junit.platform.launcher.*;
import org.junit.platform.launcher.core.*;
import org.junit.platform.launcher.listeners.*;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.TestExecutionResult;

public class Loop2 {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        String config = a.length > 1 ? a[1] : "AsyncDeviceListened";
        Class<?> top = Class.forName("org.depengine.engine.perdevice.PerDeviceConformanceTest");
        Class<?> cfg = Class.forName("org.depengine.testkit.EngineConformance$" + config);
        Class<?> suite = Class.forName("org.depengine.testkit.EngineConformance$Configured$Reliability");
        Launcher l = LauncherFactory.create();
        int fails = 0;
        for (int i = 0; i < n; i++) {
            LauncherDiscoveryRequest req = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectNestedMethod(List.of(top, cfg), suite, "failuresReportedByWaitForVarAreNotKept"))
                .build();
            SummaryGeneratingListener s = new SummaryGeneratingListener();
            l.execute(req, s);
            var sum = s.getSummary();
            if (sum.getTestsSucceededCount() + sum.getTestsFailedCount() != 1) {
                System.out.println("run " + i + ": found " + sum.getTestsFoundCount() + " skipped " + sum.getTestsSkippedCount());
            }
            for (var f : sum.getFailures()) {
                fails++;
                String m = String.valueOf(f.getException().getMessage());
                System.out.println("run " + i + " FAIL: " + m.substring(0, m.length()));
                if (System.getProperty("dump") != null && fails == 1) {
                    var mx = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
                    mx.dumpHeap(System.getProperty("dump"), true);
                    System.out.println("dumped");
                    Thread.getAllStackTraces().forEach((t, st) -> { System.out.println("T " + t.getName() + " " + t.getState()); for (var e : st) System.out.println("    " + e); });
                }
            }
        }
        System.out.println("failures " + fails + " of " + n);
    }
}
