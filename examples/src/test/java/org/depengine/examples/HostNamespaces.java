package org.depengine.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.depengine.testkit.Requirements;

/**
 * Hosts on one machine: Linux network namespaces, one per host, joined pairwise by veth links (a full
 * mesh: no bridge, no router). Host {@code i} has the address {@code 10.213.0.(i+1)} on each of its
 * links, a route to each peer over their link, and no other way out; every link is limited to 1 Gbit/s
 * each way by a {@code tbf} qdisc on both ends. A process started with {@link #start} runs on host
 * {@code i} as far as TCP is concerned.
 *
 * <p>The namespaces' names carry this JVM's pid and a random part, so two runs on one machine never
 * collide (their addresses are in namespaces of their own). {@link #removeAll} — also run when the JVM
 * exits — kills the processes started here and deletes the namespaces, which removes their links and
 * qdiscs with them. Needs root and iproute2; {@link #create} skips the test (an assumption, or a failure
 * where {@code netns} is required) only when a namespace or a veth link cannot be made. Not thread-safe.
 */
final class HostNamespaces {
    /** The name to list in {@value Requirements#PROPERTY} to make a missing capability a failure, not a skip. */
    static final String REQUIREMENT = "netns";
    private static final String SUBNET = "10.213.0.";
    private static final Pattern SENT = Pattern.compile("Sent (\\d+) bytes");
    private static final long COMMAND_SECONDS = 30;

    private final String prefix = "dpe" + ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 6);
    private final int hosts;
    private final List<String> namespaces = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final Thread onExit = new Thread(this::removeQuietly, "remove host namespaces");
    private boolean closed;

    private HostNamespaces(int hosts) {
        this.hosts = hosts;
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    /** Creates {@code hosts} hosts (2..9) and their links; aborts the test when namespaces or veth links cannot be made. */
    static HostNamespaces create(int hosts) throws IOException, InterruptedException {
        HostNamespaces h = new HostNamespaces(hosts);
        try {
            h.build();
            return h;
        } catch (RuntimeException | IOException | InterruptedException | Error e) {
            h.removeAll();
            throw e;
        }
    }

    /** Host {@code i}'s address. */
    String address(int host) {
        return SUBNET + (host + 1);
    }

    /** Starts {@code command} on host {@code i} (through {@code ip netns exec}), stdout and stderr together to {@code out}. */
    Process start(int host, List<String> command, ProcessBuilder.Redirect out) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", namespace(host)));
        cmd.addAll(command);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out).start();
        processes.add(p);
        return p;
    }

    /** Kills {@code p} (a process {@link #start}ed here) and whatever it started, at once (SIGKILL). */
    static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    /** Takes host {@code host}'s ends of its links down: its packets stop, with no reset or close for anyone to see. */
    void cutOff(int host) throws IOException, InterruptedException {
        for (int peer = 0; peer < hosts; peer++) {
            if (peer != host) {
                ip("ip", "-n", namespace(host), "link", "set", link(peer), "down");
            }
        }
    }

    /** The bytes host {@code from}'s end of its link to host {@code to} has sent through the link's qdisc. */
    long bytesSent(int from, int to) throws IOException, InterruptedException {
        String out = ip("tc", "-n", namespace(from), "-s", "qdisc", "show", "dev", link(to));
        Matcher m = SENT.matcher(out);
        if (!out.contains("tbf") || !m.find()) {
            throw new IllegalStateException("no tbf qdisc on host " + from + "'s link to host " + to + ": " + out);
        }
        return Long.parseLong(m.group(1));
    }

    private void build() throws IOException, InterruptedException {
        if (hosts < 2 || hosts > 9) {
            throw new IllegalArgumentException("hosts " + hosts + ": give 2..9");
        }
        for (String tool : List.of("ip", "tc")) {
            Requirements.assume(REQUIREMENT, runOrAbsent(tool, "-V") != null, "needs the '" + tool + "' command on the "
                    + "PATH (iproute2; .ci/run installs it) to make network namespaces and limit their links");
        }
        for (int i = 0; i < hosts; i++) {
            Result add = run("ip", "netns", "add", namespace(i));
            Requirements.assume(REQUIREMENT, add.exit == 0, "cannot create a network namespace (needs root): "
                    + "'ip netns add' said: " + add.out.strip());
            namespaces.add(namespace(i));
            ip("ip", "-n", namespace(i), "link", "set", "lo", "up");
        }
        for (int a = 0; a < hosts; a++) {
            for (int b = a + 1; b < hosts; b++) {
                Result veth = run("ip", "-n", namespace(a), "link", "add", "name", link(b), "type", "veth",
                        "peer", "name", link(a), "netns", namespace(b));
                Requirements.assume(REQUIREMENT, veth.exit == 0, "cannot create a veth link between network "
                        + "namespaces: 'ip link add ... type veth' said: " + veth.out.strip());
            }
        }
        for (int i = 0; i < hosts; i++) {
            for (int j = 0; j < hosts; j++) {
                if (i == j) {
                    continue;
                }
                String ns = namespace(i);
                ip("ip", "-n", ns, "addr", "add", address(i) + "/32", "dev", link(j));
                ip("ip", "-n", ns, "link", "set", link(j), "up");
                ip("ip", "-n", ns, "route", "add", address(j) + "/32", "dev", link(j), "src", address(i));
                ip("tc", "-n", ns, "qdisc", "add", "dev", link(j), "root", "tbf", "rate", "1gbit", "burst", "256kb",
                        "latency", "10ms");
            }
        }
    }

    private String namespace(int host) {
        return prefix + "-h" + host;
    }

    /** The name, in every host, of its end of the link to host {@code peer}. */
    private static String link(int peer) {
        return "to" + peer;
    }

    /** Kills the processes started here, deletes the namespaces, and checks that none is left. Idempotent. */
    void removeAll() throws IOException, InterruptedException {
        if (closed) {
            return;
        }
        remove();
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs (and finds nothing left)
        }
        Result list = run("ip", "netns", "list");
        if (list.out.contains(prefix)) {
            throw new IllegalStateException("network namespaces " + prefix + "-* are left after removal: " + list.out);
        }
    }

    /** Kills every process started here that still runs, and waits (boundedly) until they are gone. */
    void killAll() throws InterruptedException {
        for (Process p : processes) {
            kill(p);
        }
        for (Process p : processes) {
            if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("process " + p.pid() + " still runs " + COMMAND_SECONDS + " s after SIGKILL");
            }
        }
        processes.clear();
    }

    private void remove() throws IOException, InterruptedException {
        closed = true;
        killAll();
        StringBuilder failed = new StringBuilder();
        for (String ns : namespaces) { // every one, even after a failure
            Result r = run("ip", "netns", "del", ns);
            if (r.exit != 0) {
                failed.append(ns).append(": ").append(r.out.strip()).append("; ");
            }
        }
        namespaces.clear();
        if (failed.length() > 0) {
            throw new IllegalStateException("could not delete network namespaces: " + failed);
        }
    }

    private void removeQuietly() {
        try {
            if (!closed) {
                remove();
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            System.err.println("HostNamespaces: removing " + prefix + "-*: " + e);
        }
    }

    private record Result(int exit, String out) {
    }

    /** Runs an iproute2 command that must succeed. */
    private static String ip(String... cmd) throws IOException, InterruptedException {
        Result r = run(cmd);
        if (r.exit != 0) {
            throw new IllegalStateException("'" + String.join(" ", cmd) + "' failed with status " + r.exit + ": "
                    + r.out.strip());
        }
        return r.out;
    }

    /** As {@link #run}, or null when the command does not exist. */
    private static Result runOrAbsent(String... cmd) throws InterruptedException {
        try {
            return run(cmd);
        } catch (IOException e) {
            return null;
        }
    }

    private static Result run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("'" + String.join(" ", cmd) + "' did not finish in " + COMMAND_SECONDS + " s");
        }
        return new Result(p.exitValue(), out);
    }
}
