package org.depengine.examples;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.depengine.kvstore.KVStoreSettings;
import picocli.CommandLine.Option;

/**
 * Where the workers of a {@code dist_sync} or {@code dist_async} run (a picocli mixin of
 * {@link MultiDeviceTraining}): either this process starts them all on loopback ({@code --workers N}),
 * or it is one worker of a job that runs one worker per machine ({@code --members} with {@code --rank}
 * and {@code --job}, the same command on every machine but for the rank). The loopback form starts its
 * other workers with the per-machine options. A worker joining a running elastic job gives the job's
 * {@code --members} and {@code --job} and its own address instead of a rank ({@link #check(String, String)}).
 * Not thread-safe; picocli fills it once.
 */
final class ClusterOptions {
    /**
     * The KVStore setting the job id goes to: kvstore-hazelcast names a job's maps in the cluster with it,
     * so that every worker given the same {@code --job} opens the same store.
     */
    static final String JOB_SETTING = "jobId";

    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    @Option(names = "--workers", paramLabel = "N",
            description = "the number of workers of dist_sync/dist_async: without --members, this process starts N "
                    + "JVMs on loopback (default 2; 1 for local); with --members, the number of machines (default: "
                    + "one per address listed)")
    private Integer workersOption;

    @Option(names = "--members", paramLabel = "HOST:PORT,...",
            description = "every worker's address, in rank order, the same list on every machine: this process is then "
                    + "the one worker --rank of the job and starts no other JVM")
    private String members;

    @Option(names = "--rank", paramLabel = "R",
            description = "this worker's place in --members, 0..N-1 (rank 0 prints the epochs and writes the trace)")
    private Integer rankOption;

    @Option(names = "--job", paramLabel = "ID",
            description = "the job id, the same on every worker (letters, digits, '.', '_', '-'): names the job's "
                    + "Hazelcast cluster and its store (depengine.kvstore." + JOB_SETTING + "), so that two jobs "
                    + "never join or read each other; required with --members (default for the loopback form: a "
                    + "fresh one)")
    private String job;

    @Option(names = "--bind", paramLabel = "ADDRESS",
            description = "the address of this machine that its member listens on (default: this worker's own "
                    + "address in --members)")
    private String bind;

    /** The members, checked, once {@link #check} has run; empty when this process is the only worker or starts them. */
    private List<String> memberList = List.of();

    /** A joiner's own {@code host:port}, checked; null for a worker of the job's start. */
    private String joinAddress;

    /**
     * Checks the options against each other and the store type, and returns the number of workers.
     *
     * @throws IllegalArgumentException naming the option that is wrong and what to give instead
     */
    int check(String kvstoreType) {
        return check(kvstoreType, null);
    }

    /**
     * As {@link #check(String)}; with {@code join} (a {@code host:port} of this machine, not null), this
     * process joins a running elastic job as a new worker listening there: {@code --members} lists the
     * job's workers and {@code --job} names it, and there is no {@code --rank} (the job's view gives it
     * one). Returns the number of workers the job started with.
     *
     * @throws IllegalArgumentException naming the option that is wrong and what to give instead
     */
    int check(String kvstoreType, String join) {
        if (join != null) {
            return checkJoiner(kvstoreType, join);
        }
        boolean local = kvstoreType.equals("local");
        if (members == null) {
            needsMembers("--rank", rankOption);
            needsMembers("--bind", bind);
            int workers = workersOption != null ? workersOption : local ? 1 : 2;
            if (local && workers != 1) {
                throw new IllegalArgumentException("--workers " + workers + " needs --kvstore dist_sync or dist_async "
                        + "(a local store has one worker)");
            }
            checkJob();
            return Cli.inRange("--workers", workers, 1, 64);
        }
        if (local) {
            throw new IllegalArgumentException("--members needs --kvstore dist_sync or dist_async (a local store has one "
                    + "worker)");
        }
        memberList = parseMembers(members);
        int workers = memberList.size();
        if (workersOption != null && workersOption != workers) {
            throw new IllegalArgumentException("--workers " + workersOption + " but --members lists " + workers
                    + " addresses: list one host:port per worker, in rank order");
        }
        if (rankOption == null) {
            throw new IllegalArgumentException("--members needs --rank R, this worker's place in the list (0.."
                    + (workers - 1) + ")");
        }
        if (job == null) {
            throw new IllegalArgumentException("--members needs --job ID, the same on every worker: it names the "
                    + "job's cluster and store");
        }
        checkJob();
        if (rankOption < 0 || rankOption >= workers) {
            throw new IllegalArgumentException("--rank " + rankOption + " is out of range: give an integer in 0.."
                    + (workers - 1) + " (--members lists " + workers + " workers)");
        }
        String own = memberList.get(rankOption);
        if (bind == null) {
            String host = own.substring(0, own.lastIndexOf(':'));
            if (!isLocal(host)) {
                throw new IllegalArgumentException("--members gives rank " + rankOption + " the address " + own
                        + ", which is not an address of this machine (its addresses: " + localAddresses() + "): check --rank, or "
                        + "give --bind with the address to listen on");
            }
            bind = address(host);
        } else if (!isLocal(bind)) {
            throw new IllegalArgumentException("--bind " + bind + " is not an address of this machine: give one of its addresses ("
                    + localAddresses() + ")");
        } else {
            bind = address(bind);
        }
        return workers;
    }

    private int checkJoiner(String kvstoreType, String join) {
        if (members == null || job == null) {
            throw new IllegalArgumentException("--join needs --members, the running job's workers (host:port, in rank "
                    + "order), and --job, its id");
        }
        if (rankOption != null) {
            throw new IllegalArgumentException("--join takes no --rank: a joiner's rank comes from the job's view");
        }
        if (workersOption != null) {
            throw new IllegalArgumentException("--join takes no --workers: the job's view says how many there are");
        }
        if (kvstoreType.equals("local")) {
            throw new IllegalArgumentException("--join needs --kvstore dist_sync (a local store has one worker)");
        }
        checkJob();
        memberList = parseMembers(members);
        List<String> given;
        try {
            given = parseMembers(join);
        } catch (IllegalArgumentException e) {
            given = List.of();
        }
        if (given.size() != 1) {
            throw new IllegalArgumentException("--join '" + join + "': give one host:port, the address this worker "
                    + "listens on, e.g. 10.0.0.4:5701");
        }
        String own = given.get(0);
        if (memberList.contains(own)) {
            throw new IllegalArgumentException("--join " + own + " is in --members: a joiner listens on an address of "
                    + "its own");
        }
        String host = own.substring(0, own.lastIndexOf(':'));
        String listen = bind != null ? bind : host;
        if (!isLocal(listen)) {
            throw new IllegalArgumentException((bind != null ? "--bind " : "--join ") + listen + " is not an address "
                    + "of this machine: give one of its addresses (" + localAddresses() + ")");
        }
        bind = address(listen);
        joinAddress = own;
        return memberList.size();
    }

    /** Whether this process joins a running job ({@link #check(String, String)} with an address). */
    boolean joining() {
        return joinAddress != null;
    }

    /** True when this process must start the other workers on loopback (checked options only). */
    boolean startsWorkers(int workers) {
        return memberList.isEmpty() && workers > 1;
    }

    /** This worker's rank at the job's start: 0 unless given with {@code --members}; -1 for a joiner. */
    int rank() {
        return joinAddress != null ? -1 : rankOption == null ? 0 : rankOption;
    }

    /**
     * Makes this process rank 0 of {@code ports.size()} workers on loopback, one port each, and returns
     * the job id they share.
     */
    String placeOnLoopback(List<Integer> ports, String freshJob) {
        List<String> list = new ArrayList<>();
        for (int p : ports) {
            list.add("127.0.0.1:" + p);
        }
        memberList = List.copyOf(list);
        members = String.join(",", list);
        rankOption = 0;
        bind = "127.0.0.1";
        if (job == null) {
            job = freshJob;
        }
        return job;
    }

    /** The per-machine options of worker {@code r} of this job (after {@link #placeOnLoopback}). */
    List<String> workerArgs(int r) {
        return List.of("--members", members, "--rank", Integer.toString(r), "--job", job);
    }

    /**
     * The options of a worker that joins this job (after {@link #placeOnLoopback}), listening on
     * {@code own}: the job's members and id, and its own address.
     */
    List<String> joinerArgs(String own) {
        return List.of("--members", members, "--job", job, "--join", own);
    }

    /** The member list as given (after {@link #placeOnLoopback}: the loopback one). */
    String members() {
        return members;
    }

    /**
     * The store settings of this worker: the system properties' ({@code depengine.kvstore.*}), with the
     * member list, rank, job and address of the options when there are several workers. A joiner's have
     * no rank and no number of workers (the job's view gives them) and its own port.
     */
    KVStoreSettings storeSettings() {
        KVStoreSettings fromProperties = KVStoreSettings.fromSystemProperties();
        if (memberList.isEmpty()) {
            return fromProperties;
        }
        if (joinAddress != null) {
            return fromProperties.toBuilder()
                    .set("members", String.join(",", memberList))
                    .set("clusterName", job)
                    .set(JOB_SETTING, job)
                    .set("port", joinAddress.substring(joinAddress.lastIndexOf(':') + 1))
                    .set("portCount", "1")
                    .set("bind", bind)
                    .build();
        }
        String own = memberList.get(rank());
        return fromProperties.toBuilder()
                .set("members", String.join(",", memberList)).rank(rank()).numWorkers(memberList.size())
                .set("clusterName", job)
                .set(JOB_SETTING, job)
                .set("port", own.substring(own.lastIndexOf(':') + 1))
                .set("portCount", "1")
                .set("bind", bind)
                .build();
    }

    private static void needsMembers(String option, Object value) {
        if (value != null) {
            throw new IllegalArgumentException(option + " needs --members, the address of every worker (one process "
                    + "per machine); without it, --workers N starts N workers on loopback");
        }
    }

    private void checkJob() {
        if (job != null && !JOB_ID.matcher(job).matches()) {
            throw new IllegalArgumentException("--job '" + job + "': give 1 to 64 letters, digits, '.', '_' or '-'");
        }
    }

    /** The {@code host:port} entries of {@code list}, each checked, none twice. */
    static List<String> parseMembers(String list) {
        List<String> out = new ArrayList<>();
        for (String part : list.split(",", -1)) {
            String m = part.strip();
            int colon = m.lastIndexOf(':');
            if (colon <= 0 || colon == m.length() - 1) {
                throw new IllegalArgumentException("--members entry '" + m + "' is not host:port: give every worker's "
                        + "address as host:port, separated by commas, e.g. 10.0.0.1:5701,10.0.0.2:5701");
            }
            String portText = m.substring(colon + 1);
            int port;
            try {
                port = Integer.parseInt(portText);
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("--members entry '" + m + "': the port '" + portText
                        + "' is not an integer in 1..65535");
            }
            if (out.contains(m)) {
                throw new IllegalArgumentException("--members lists " + m + " twice: give each worker its own address");
            }
            out.add(m);
        }
        return List.copyOf(out);
    }

    /** True when {@code host} resolves to an address of one of this machine's interfaces. */
    private static boolean isLocal(String host) {
        try {
            return NetworkInterface.getByInetAddress(InetAddress.getByName(host)) != null;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown host '" + host + "': give an IP address or a name this machine "
                    + "resolves", e);
        } catch (SocketException e) {
            throw new IllegalStateException("cannot list this machine's network interfaces: " + e.getMessage(), e);
        }
    }

    private static String address(String host) {
        try {
            return InetAddress.getByName(host).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown host '" + host + "'", e);
        }
    }

    /** This machine's interface addresses, sorted, for error messages. */
    private static String localAddresses() {
        TreeSet<String> all = new TreeSet<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    all.add(a.getHostAddress());
                }
            }
        } catch (SocketException e) {
            return "unknown: " + e.getMessage();
        }
        return String.join(", ", all);
    }
}
