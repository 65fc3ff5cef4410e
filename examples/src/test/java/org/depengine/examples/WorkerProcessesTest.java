package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkerProcessesTest {
    @Test
    void workersGetRankZerosSettingsHeapAndJitOptions() {
        List<String> leftOut = new ArrayList<>();
        List<String> rank0 = List.of("-Ddepengine.engine=perdevice", "-Ddepengine.kvstore.timeoutMs=9000", "-Xmx2g",
                "-XX:TieredStopAtLevel=1", "-Xlog:gc", "--module-path=a:b", "-Djdk.module.main=org.depengine.examples",
                "--enable-native-access=jocl,jcuda,org.depengine.device.cuda");
        assertEquals(List.of("-Ddepengine.engine=perdevice", "-Ddepengine.kvstore.timeoutMs=9000", "-Xmx2g",
                "-XX:TieredStopAtLevel=1", "-Xlog:gc"), WorkerProcesses.sharedJvmOptions(rank0, leftOut));
        assertEquals(List.of(), leftOut, "nothing is left out but the module launch, which start() adds itself");
    }

    @Test
    void optionsThatWouldShareAFileOrAPortAreLeftOutAndNamed() {
        List<String> leftOut = new ArrayList<>();
        List<String> rank0 = List.of("-agentpath:/tmp/libasyncProfiler.so=start,file=p.txt", "-agentlib:jdwp=transport=dt_socket",
                "-javaagent:x.jar", "-XX:StartFlightRecording=filename=r.jfr", "-Xlog:safepoint:file=s.log", "-Dkept=1");
        assertEquals(List.of("-Dkept=1"), WorkerProcesses.sharedJvmOptions(rank0, leftOut));
        assertEquals(rank0.subList(0, 5), leftOut);
    }
}
