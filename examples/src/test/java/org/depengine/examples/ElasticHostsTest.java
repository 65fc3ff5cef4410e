package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Elastic jobs on hosts that are separate as far as TCP goes ({@link HostNamespaces}), one {@link ElasticSteps}
 * worker per host, losing workers mid-training:
 * <ul>
 *   <li>the last of three killed (its kernel resets its connections);</li>
 *   <li>the last of three cut off (its links down: its packets just stop); it is the minority side, so it
 *   fails saying it is cut off from the job;</li>
 *   <li>the last two of four killed back to back (one view or two, as the detection's timing gives);</li>
 *   <li>the second of two killed with {@code minWorkers=2}: the job pauses, and with no worker joining within
 *   {@code minWorkersWaitMs} the survivor fails naming who left and when;</li>
 *   <li>the last of three killed as a new worker starts with {@code --join} on a host of its own: the job moves
 *   to a view without the lost worker and one with the joiner (in the order the timing gives), and the joiner
 *   trains from its first period on;</li>
 *   <li>the second of two killed with {@code minWorkers=2} and a joiner started: the job pauses (no view of one
 *   worker is ever the store's) until the joiner's admission resumes it.</li>
 * </ul>
 * The survivors that go on finish the training, told the same changes, and rank 0's values after every round
 * are the serial model of the elastic rule: each round the sum of the pushes of the workers of the view that
 * summed it (the old view's up to each key's first round of the new one). The detection (the loss's time
 * against the kill's or the cut's) and the move to the new view (the survivors' time against the detection)
 * are printed, and bounded loosely for a loaded machine: 15 s and 5 s. With {@code -Ddepengine.test.long=true}
 * each scenario runs at five points of the training.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ElasticHostsTest {
    private static final String MAIN = "org.depengine.examples.ElasticSteps";
    private static final int PORT = 5701;
    private static final int ROUNDS = 60;
    /** Rounds per period: a barrier every {@value} rounds, so that a joiner has periods to join at. */
    private static final int PERIOD = 5;
    private static final Pattern ROUND = Pattern.compile("^ROUND (\\d+) VIEW (\\d+) WORKERS (\\d+) small=([-0-9.E]+),"
            + "[-0-9.E]+ split=[-0-9.E]+,([-0-9.E]+)$");
    private static final Pattern CHANGE = Pattern.compile("^CHANGE epoch=(\\d+) rank=(\\d+) workers=(\\d+) left=\\[([^]]*)\\] "
            + "joined=\\[([^]]*)\\] moved=(\\d+) first=small:(\\d+),split:(\\d+)$");

    private HostNamespaces hosts;

    @TempDir
    Path dir;

    /**
     * A change a worker printed: who left (ranks in the view before, with when it was detected), how many joined
     * and their first period, when it moved, the first rounds.
     */
    private record Change(int epoch, int workers, List<Integer> left, List<Long> detected, int joined, int fromPeriod,
                          long moved, Map<String, Integer> first) {
        static List<Change> of(String output) {
            List<Change> out = new ArrayList<>();
            output.lines().map(CHANGE::matcher).filter(Matcher::matches).forEach(m -> {
                List<Integer> left = new ArrayList<>();
                List<Long> detected = new ArrayList<>();
                for (String d : m.group(4).split(" ")) {
                    if (!d.isEmpty()) {
                        left.add(Integer.parseInt(d.substring(0, d.indexOf('@'))));
                        detected.add(Long.parseLong(d.substring(d.indexOf('@') + 1)));
                    }
                }
                String[] joiners = m.group(5).isEmpty() ? new String[0] : m.group(5).split(" ");
                int from = joiners.length == 0 ? -1 : Integer.parseInt(joiners[0].substring(joiners[0].indexOf('@') + 1));
                out.add(new Change(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(3)), left, detected,
                        joiners.length, from, Long.parseLong(m.group(6)), Map.of("small", Integer.parseInt(m.group(7)),
                        "split", Integer.parseInt(m.group(8)))));
            });
            return out;
        }
    }

    /** The rounds after which workers are lost: one (round 5); with {@code -Ddepengine.test.long=true} five, 5 to 17. */
    static IntStream lossRounds() {
        return IntStream.rangeClosed(0, Boolean.getBoolean("depengine.test.long") ? 4 : 0).map(i -> 5 + 3 * i);
    }

    @AfterEach
    void removeHosts() throws Exception {
        if (hosts != null) {
            hosts.killAll();
            hosts.removeAll();
        }
    }

    @ParameterizedTest(name = "killed after rank 0's round {0}")
    @MethodSource("lossRounds")
    void whenAWorkerIsKilledTheOthersGoOnAsTheRulesSerialModel(int round) throws Exception {
        Process[] w = start(3, round, List.of());
        HostNamespaces.kill(w[2]);
        goOn(w, 2, "rank 2 killed");
    }

    @ParameterizedTest(name = "cut off after rank 0's round {0}")
    @MethodSource("lossRounds")
    void whenAWorkersHostIsCutOffTheMajorityGoesOnAndItFailsSayingSo(int round) throws Exception {
        Process[] w = start(3, round, List.of());
        hosts.cutOff(2);
        goOn(w, 2, "rank 2 cut off");
        assertTrue(w[2].waitFor(60, TimeUnit.SECONDS), "the cut-off worker still runs\n" + output(2));
        assertNotEquals(0, w[2].exitValue());
        assertTrue(output(2).contains("cut off from the job: this side has 1 of 3 workers"), output(2));
    }

    @ParameterizedTest(name = "killed after rank 0's round {0}")
    @MethodSource("lossRounds")
    void whenTwoOfFourAreKilledBackToBackTheOthersGoOnAsTheRulesSerialModel(int round) throws Exception {
        // Two members lost at once: the job's shared map (the view) keeps a copy by its default two backups.
        Process[] w = start(4, round, List.of());
        HostNamespaces.kill(w[3]);
        HostNamespaces.kill(w[2]);
        goOn(w, 2, "ranks 3 and 2 killed");
    }

    @ParameterizedTest(name = "killed after rank 0's round {0}")
    @MethodSource("lossRounds")
    void belowMinWorkersWithNoJoinerTheSurvivorFailsAtTheBoundNamingWhoLeft(int round) throws Exception {
        Process[] w = start(2, round, List.of("-Ddepengine.kvstore.minWorkersWaitMs=4000"), "--min-workers", "2");
        long killed = System.nanoTime();
        HostNamespaces.kill(w[1]);
        assertTrue(w[0].waitFor(60, TimeUnit.SECONDS), "rank 0 still runs 60 s after the loss\n" + output(0));
        double seconds = (System.nanoTime() - killed) / 1e9;
        String out = output(0);
        System.out.printf(Locale.ROOT, "rank 1 killed with minWorkers=2: rank 0 failed %.2f s after%n", seconds);
        assertNotEquals(0, w[0].exitValue(), out);
        assertTrue(out.contains("of minWorkers=2 workers since") && out.contains("rank 1 (member")
                && out.contains("no worker joined within minWorkersWaitMs=4000"), out);
        assertTrue(seconds >= 4 && seconds < 30, "failed " + seconds + " s after the loss\n" + out);
    }

    @ParameterizedTest(name = "killed after rank 0's round {0}")
    @MethodSource("lossRounds")
    void aJoinerArrivingDuringALossIsAdmittedAndTheRoundsAreTheRulesSerialModel(int round) throws Exception {
        // Rounds of 250 ms: the job runs for 10 s or more after the loss, time for the joiner's JVM to start and join.
        Process[] w = start(3, round, List.of(), "--round-ms", "250");
        HostNamespaces.kill(w[2]);
        Process joiner = join(3, List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=info"));
        goOn(w, 2, "rank 2 killed as a joiner starts", joiner);
    }

    @ParameterizedTest(name = "killed after rank 0's round {0}")
    @MethodSource("lossRounds")
    void belowMinWorkersAJoinerBeforeTheBoundResumesThePausedJob(int round) throws Exception {
        Process[] w = start(2, round, List.of("-Ddepengine.kvstore.minWorkersWaitMs=60000"), "--min-workers", "2");
        HostNamespaces.kill(w[1]);
        Process joiner = join(2, List.of());
        List<Change> changes = goOn(w, 1, "rank 1 killed with minWorkers=2, a joiner started", joiner);
        // Paused, not run with one worker: the view below minWorkers is never the store's.
        assertTrue(changes.stream().allMatch(c -> c.workers() >= 2), "a change below minWorkers=2: " + changes);
    }

    private OutputLines rank0;
    private long lostAt;
    private String job;
    private List<String> memberList;

    /** Starts {@code n} workers (highest rank first) and returns once rank 0 has printed round {@code lossRound}. */
    private Process[] start(int n, int lossRound, List<String> jvmOptions, String... extra) throws Exception {
        hosts = HostNamespaces.create(n + 1); // the last one for a joiner
        job = "elastic-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> members = new ArrayList<>();
        for (int h = 0; h < n; h++) {
            members.add(hosts.address(h) + ":" + PORT);
        }
        memberList = members;
        Process[] workers = new Process[n];
        for (int rank = n - 1; rank >= 0; rank--) {
            List<String> args = new ArrayList<>(List.of("--rounds", Integer.toString(ROUNDS), "--period",
                    Integer.toString(PERIOD), "--members",
                    String.join(",", members), "--rank", Integer.toString(rank), "--job", job, "--bind", hosts.address(rank)));
            args.addAll(List.of(extra));
            List<String> cmd = ModulePathLauncher.command(jvmOptions, MAIN, args.toArray(String[]::new));
            workers[rank] = hosts.start(rank, cmd, rank == 0 ? ProcessBuilder.Redirect.PIPE
                    : ProcessBuilder.Redirect.to(log(rank).toFile()));
        }
        rank0 = new OutputLines(workers[0], Pattern.compile("^ROUND " + lossRound + " "), "rank 0");
        rank0.seen.get(240, TimeUnit.SECONDS);
        lostAt = System.currentTimeMillis();
        return workers;
    }

    /** Starts a worker with {@code --join} on host {@code host} (its own address), its output to a file. */
    private Process join(int host, List<String> jvmOptions) throws Exception {
        List<String> args = List.of("--rounds", Integer.toString(ROUNDS), "--period", Integer.toString(PERIOD), "--round-ms",
                "250", "--members",
                String.join(",", memberList), "--job", job, "--join", hosts.address(host) + ":" + PORT, "--bind",
                hosts.address(host));
        return hosts.start(host, ModulePathLauncher.command(jvmOptions, MAIN, args.toArray(String[]::new)),
                ProcessBuilder.Redirect.to(dir.resolve("joiner.log").toFile()));
    }

    private List<Change> goOn(Process[] w, int survivors, String what) throws Exception {
        return goOn(w, survivors, what, null);
    }

    /**
     * Ranks {@code 0..survivors-1} (and the joiner, if any) finish, told the same changes, and rank 0's values are
     * the model's; returns rank 0's changes.
     */
    private List<Change> goOn(Process[] w, int survivors, String what, Process joiner) throws Exception {
        for (int r = 0; r < survivors; r++) {
            assertTrue(w[r].waitFor(120, TimeUnit.SECONDS), "rank " + r + " did not finish after " + what + "\n" + output(r));
            assertEquals(0, w[r].exitValue(), "rank " + r + " failed after " + what + "\n" + output(r));
        }
        if (joiner != null) {
            boolean ended = joiner.waitFor(60, TimeUnit.SECONDS);
            String log = Files.readString(dir.resolve("joiner.log"));
            assertTrue(ended, "the joiner did not finish after " + what + "\n" + log);
            assertEquals(0, joiner.exitValue(), "the joiner failed after " + what + "\n" + log);
        }
        int joined = joiner == null ? 0 : 1;
        String out = rank0.text.get(30, TimeUnit.SECONDS);
        List<Change> changes = Change.of(out);
        assertTrue(!changes.isEmpty() && changes.get(changes.size() - 1).workers() == survivors + joined, "changes "
                + changes + "\n" + out);
        assertEquals(w.length - survivors, changes.stream().mapToInt(c -> c.left().size()).sum(), out);
        assertEquals(joined, changes.stream().mapToInt(Change::joined).sum(), out);
        for (int r = 1; r < survivors; r++) {
            assertEquals(changes.stream().map(c -> c.epoch() + " " + c.first()).toList(), Change.of(output(r)).stream()
                    .map(c -> c.epoch() + " " + c.first()).toList(), "rank " + r + "'s changes against rank 0's");
        }
        Change c = changes.stream().filter(x -> !x.left().isEmpty()).findFirst().orElseThrow();
        double detection = (c.detected().get(0) - lostAt) / 1000.0;
        double move = (c.moved() - c.detected().get(0)) / 1000.0;
        System.out.printf(Locale.ROOT, "%s: the loss detected %.2f s after, the survivors in view %d %.2f s after that; "
                + "changes %s%n", what, detection, c.epoch(), move, changes);
        assertTrue(detection < 15, "detection took " + detection + " s\n" + out);
        assertTrue(joiner != null || move < 5, "the move to view " + c.epoch() + " took " + move + " s\n" + out);
        checkValues(out, w.length, changes);
        return changes;
    }

    /**
     * Rank 0's value after every round is the model's: each round summed over the view that summed it (the view
     * before each change up to the key's first round of the new one), a joiner's push only from its first period.
     */
    private static void checkValues(String out, int workers, List<Change> changes) {
        Map<Integer, double[]> printed = new HashMap<>();
        out.lines().map(ROUND::matcher).filter(Matcher::matches).forEach(m -> printed.put(Integer.parseInt(m.group(1)),
                new double[] {Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5))}));
        assertEquals(ROUNDS, printed.size(), out);
        double[] model = new double[2];
        for (int round = 1; round <= ROUNDS; round++) {
            int k = 0;
            for (String key : List.of("small", "split")) {
                List<Integer> summed = IntStream.range(0, workers).boxed().toList();
                List<Integer> view = summed;
                int joinerFrom = Integer.MAX_VALUE;
                for (Change c : changes) {
                    List<Integer> next = new ArrayList<>(view);
                    for (int left : c.left()) {
                        next.remove(view.get(left));
                    }
                    for (int j = 0; j < c.joined(); j++) {
                        next.add(ElasticSteps.JOINER);
                        joinerFrom = c.fromPeriod();
                    }
                    view = next;
                    if (round >= c.first().get(key)) {
                        summed = view;
                    }
                }
                for (int r : summed) {
                    if (r == ElasticSteps.JOINER && (round - 1) / PERIOD < joinerFrom) {
                        continue; // a joiner ended every period before its first
                    }
                    int elements = key.equals("small") ? 1 : ElasticSteps.KEYS.get(key);
                    for (int i = 0; i < elements; i++) {
                        model[k] += ElasticSteps.push(r, round, key, i);
                    }
                }
                assertEquals(model[k], printed.get(round)[k], key + " after round " + round + ", changes " + changes);
                k++;
            }
        }
    }

    private String output(int r) throws Exception {
        return r == 0 ? rank0.sofar.toString() : Files.readString(log(r));
    }

    private Path log(int rank) {
        return dir.resolve("rank" + rank + ".log");
    }
}
