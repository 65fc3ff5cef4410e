package org.depengine.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's use of the profiles ({@link ProfileRun}): the one-line explanation in a missed
 * target's row, and the "Profiles" subsection of a targets section that it links to. Everything
 * here copes with a missing profile (the cell and the subsection then say so).
 */
final class ProfileSection {
    /** Where run.sh stores the summaries, under the results folder: {@code profiles/jdkN.json}. */
    static final String DIR = "profiles";
    static final String NO_PROFILE = "no profile";

    private ProfileSection() {
    }

    /** The heading of a profile, unique in the report (the JDK is in it). */
    static String title(ProfileRun.Profile p, int jdk) {
        Result k = p.key();
        String shape = k.shapeParams().isEmpty() ? "" : " " + k.shapeParams();
        return "Profile: " + k.workload() + shape + " · " + k.contender() + " · JDK " + jdk;
    }

    /**
     * The profile column of a missed target judged on {@code contender}'s result in {@code g}: the
     * profile of exactly that benchmark (same method and parameters, {@link ProfileRun#find(Result)}),
     * quoted by {@link #quote}; {@value #NO_PROFILE} when there is no profile run or that result was
     * not profiled.
     */
    static String cell(ProfileRun run, Group g, String contender) {
        Result judged = g == null ? null : g.byContender.get(contender);
        ProfileRun.Profile p = run == null || judged == null ? null : run.find(judged);
        return p == null ? NO_PROFILE : quote(run, p);
    }

    /**
     * The profile column of the fork-agreement row, whose figure (slowest fork ÷ fastest) is a property
     * of two forks that a one-fork profile cannot show: the profile of the worst result, with its ns/op
     * next to the result's median so that the reader sees which mode the profiled fork ran in; or, when
     * that workload is not one the profile step runs, why there is none.
     */
    static String forkCell(ProfileRun run, Group g, String contender) {
        Result worst = g == null ? null : g.byContender.get(contender);
        if (run == null || worst == null) {
            return NO_PROFILE;
        }
        ProfileRun.Profile p = run.find(worst);
        if (p != null) {
            return "its profile (one fork) ran at " + Report.ns(p.nanosPerRun() / p.opsPerRun()) + " ns/op, the forks' median "
                    + Report.ns(worst.nanos() / g.size()) + ": " + quote(run, p);
        }
        if (!run.covers(worst.workload())) {
            return "not profiled: this JDK's profile step ran no " + worst.workload() + " benchmark (`benchmarks/run.sh "
                    + "profile` runs every workload a target is judged on but Metg), and a spread between forks needs two "
                    + "forks: a one-fork profile shows only the mode its fork ran in";
        }
        return NO_PROFILE;
    }

    /** The METG row's column when missed: no single result is judged, so no profile applies. */
    static final String METG_NOT_PROFILED = "not profiled: METG is the crossing between op lengths of the Metg "
            + "ladder, not one result, and `benchmarks/run.sh profile` does not run the ladder";

    /**
     * A profile in one line: allocation per op (with the same engine's with the profiler off, for a
     * profiler-on result, and cf's on the same op list), the CPU split, the hottest engine method of
     * each role and, under the profiler, the share of samples in the profiler's code; linked to the
     * full profile.
     */
    static String quote(ProfileRun run, ProfileRun.Profile p) {
        Result k = p.key();
        StringBuilder sb = new StringBuilder();
        sb.append('[').append(bytesPerOp(p)).append(" B/op");
        List<String> compared = new ArrayList<>();
        ProfileRun.Profile off = profilerOff(run, p);
        if (off != null) {
            compared.add("profiler off " + bytesPerOp(off));
        }
        ProfileRun.Profile cf = run.find(k.workload(), k.shapeParams(), "cf");
        if (cf != null && cf != p) {
            compared.add("cf " + bytesPerOp(cf));
        }
        if (!compared.isEmpty()) {
            sb.append(" (").append(String.join(", ", compared)).append(')');
        }
        List<String> cpu = new ArrayList<>();
        List<String> hot = new ArrayList<>();
        for (ProfileRun.Role r : p.roles()) {
            if (r.role().equals(ProfileSummary.OTHER)) {
                continue; // JIT, JFR and JMH threads: not the contender's
            }
            cpu.add(r.role() + " " + cores(r.cpuCores()));
            ProfileRun.Share h = hottestEngineFrame(r);
            if (h != null) {
                hot.add(r.role() + " `" + h.name() + "` " + percent(h.weight(), r.samples()));
            }
        }
        if (!cpu.isEmpty()) {
            sb.append("; CPU ").append(String.join(", ", cpu)).append(" cores");
        }
        if (!hot.isEmpty()) {
            sb.append("; hottest engine methods: ").append(String.join(", ", hot));
        }
        String inProfiler = profilerShares(p);
        if (inProfiler != null) {
            sb.append("; profiler code on the stack in ").append(inProfiler);
        }
        sb.append("](#").append(Report.anchor(title(p, run.jdk()))).append(')');
        return sb.toString();
    }

    /** Whether the profiled benchmark ran its engine under depengine's profiler ({@code profiling=on}). */
    private static boolean underProfiler(ProfileRun.Profile p) {
        return "on".equals(p.params().get("profiling"));
    }

    /** For a profiler-on profile, the same benchmark's with {@code profiling=off}, or null. */
    private static ProfileRun.Profile profilerOff(ProfileRun run, ProfileRun.Profile p) {
        if (!underProfiler(p)) {
            return null;
        }
        Result k = p.key();
        Map<String, String> off = new java.util.TreeMap<>(k.params());
        off.put("profiling", "off");
        return run.find(new Result(k.workload(), k.method(), off, Double.NaN, Double.NaN));
    }

    /**
     * For a profiler-on profile, each role's share of its samples with a profiler frame on the stack
     * ("engine workers 30 % of samples, pusher 12 %"), or null (profiler off, or a summary that did not
     * count them).
     */
    private static String profilerShares(ProfileRun.Profile p) {
        if (!underProfiler(p)) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        for (ProfileRun.Role r : p.roles()) {
            if (r.role().equals(ProfileSummary.OTHER) || r.profilerSamples() == null || r.samples() == 0) {
                continue;
            }
            parts.add(r.role() + " " + percent(r.profilerSamples(), r.samples()) + (parts.isEmpty() ? " of samples" : ""));
        }
        return parts.isEmpty() ? null : String.join(", ", parts);
    }

    /** The "Profiles" subsection of a targets section: every profile of the same JDK, or why there is none. */
    static void render(StringBuilder out, ProfileRun run, int jdk, Map<String, Group> groups) {
        out.append("### Profiles\n\n");
        if (run == null) {
            out.append("No profile for JDK ").append(jdk).append(" (`benchmarks/results/").append(DIR).append("/jdk")
                    .append(jdk).append(".json` is missing): `benchmarks/run.sh targets` records one after its "
                            + "measurements; `benchmarks/run.sh profile` records one alone.\n\n");
            return;
        }
        out.append(String.format(Locale.ROOT, "Recorded by `benchmarks/run.sh profile` on %s, %s, commit %s; JMH %s, "
                        + "with JFR (`benchmarks/profile.jfc`: execution samples every 5 ms, each thread's CPU every second, "
                        + "allocation samples) and JMH's gc profiler. A profiled run is somewhat slower than a measured one, "
                        + "and may land in the other scheduling mode: compare its ns/op with the target table's. "
                        + "*CPU* is each role's user + system time in cores, including park/unpark system calls; "
                        + "*samples* count only threads running Java code, so a role can use CPU with few samples. "
                        + "Method shares are of the role's samples; *engine methods* are the innermost engine frame "
                        + "of each sample (the engine code running, or calling the JDK code on top; the benchmark's own "
                        + "code, such as the op body `Effects.apply`, is not the engine's). "
                        + "B/op is JMH's `gc.alloc.rate.norm` per run divided by the ops in a run.%n%n",
                run.javaVersion(), run.date(), run.commit().isEmpty() ? "unknown" : "`" + run.commit() + "`", run.settings()));
        for (ProfileRun.Profile p : run.profiles()) {
            profile(out, run, p, groups);
        }
    }

    private static void profile(StringBuilder out, ProfileRun run, ProfileRun.Profile p, Map<String, Group> groups) {
        Result k = p.key();
        out.append("#### ").append(title(p, run.jdk())).append("\n\n");
        out.append("Profiled: ").append(Report.time(p.nanosPerRun())).append(" per run, ")
                .append(Report.ns(p.nanosPerRun() / p.opsPerRun())).append(" ns/op");
        for (Group g : groups.values()) {
            Result r = g.byContender.get(k.contender());
            if (r != null && r.workload().equals(k.workload()) && r.method().equals(k.method()) && r.params().equals(k.params())
                    && !Double.isNaN(r.nanos())) {
                out.append(" (measured above: ").append(Report.ns(r.nanos() / g.size())).append(" ns/op)");
            }
        }
        out.append("; allocation ").append(bytesPerOp(p)).append(" B/op");
        ProfileRun.Profile cf = k.contender().equals("cf") ? null : run.find(k.workload(), k.shapeParams(), "cf");
        if (cf != null) {
            out.append(" (cf: ").append(bytesPerOp(cf)).append(" B/op)");
        }
        if (!Double.isNaN(p.gcCount())) {
            out.append(String.format(Locale.ROOT, ", GC: %.0f collections, %.0f ms", p.gcCount(), p.gcMillis()));
        }
        out.append("; ").append(p.samples()).append(" execution samples.\n\n");
        if (p.roles().isEmpty()) {
            out.append("No JFR recording was found for this benchmark.\n\n");
            return;
        }
        out.append("| threads | CPU (cores) | samples | hottest methods (self) | hottest engine methods |\n");
        out.append("|---|---:|---:|---|---|\n");
        for (ProfileRun.Role r : p.roles()) {
            out.append("| ").append(r.role()).append(" (").append(r.threads());
            if (!r.role().equals(ProfileSummary.PUSHER)) {
                List<String> names = new ArrayList<>();
                for (ProfileRun.Share s : r.busiestThreads()) {
                    names.add(s.name() + " " + cores(s.weight()));
                }
                out.append(": ").append(String.join(", ", names));
            }
            out.append(") | ").append(cores(r.cpuCores())).append(" | ").append(r.samples()).append(" (")
                    .append(percent(r.samples(), p.samples())).append(") | ").append(shares(r.selfFrames(), r.samples()))
                    .append(" | ").append(shares(r.engineFrames(), r.samples())).append(" |\n");
        }
        out.append('\n');
        String inProfiler = profilerShares(p);
        if (inProfiler != null) {
            out.append("Profiler code (`").append(ProfileSummary.PROFILER_PACKAGE, 0, ProfileSummary.PROFILER_PACKAGE.length() - 1)
                    .append("`) on the stack in ").append(inProfiler).append(": what recording the engine's events costs.\n\n");
        }
        if (!p.allocations().isEmpty()) {
            out.append("Allocated (JFR's allocation samples, share of their weight): ")
                    .append(shares(p.allocations(), p.allocationBytes())).append(".\n\n");
        }
    }

    /** The hottest engine method of a role (samples without an engine frame left out), or null. */
    private static ProfileRun.Share hottestEngineFrame(ProfileRun.Role r) {
        for (ProfileRun.Share s : r.engineFrames()) {
            if (!s.name().equals(ProfileSummary.NO_ENGINE_FRAME)) {
                return s;
            }
        }
        return null;
    }

    private static String bytesPerOp(ProfileRun.Profile p) {
        return Report.ns(p.allocBytesPerRun() / p.opsPerRun());
    }

    private static String shares(List<ProfileRun.Share> shares, double total) {
        List<String> parts = new ArrayList<>();
        for (ProfileRun.Share s : shares) {
            parts.add("`" + s.name() + "` " + percent(s.weight(), total));
        }
        return parts.isEmpty() ? "–" : String.join(", ", parts);
    }

    private static String cores(double c) {
        return Double.isNaN(c) ? "–" : String.format(Locale.ROOT, "%.2f", c);
    }

    private static String percent(double part, double total) {
        return total <= 0 ? "–" : Report.percent(part / total);
    }
}
