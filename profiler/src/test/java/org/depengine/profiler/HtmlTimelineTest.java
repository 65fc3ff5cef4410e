package org.depengine.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.depengine.api.VarHandle;
import org.depengine.profiler.Fakes.FakeOp;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTML timeline is self-contained and, opened in headless Chromium, draws one bar per op. */
class HtmlTimelineTest {
    private static final Path CHROMIUM = Path.of(System.getProperty("depengine.test.chromium", "/usr/bin/chromium"));

    @TempDir
    Path dir;

    private static Profiler chain(int n) {
        Profiler p = Profiler.builder().build();
        Fakes.ListenerSink sink = new Fakes.ListenerSink("fake");
        p.start(sink.engine);
        VarHandle v = Fakes.var("v");
        try (Workers w = new Workers()) {
            FakeOp prev = null;
            for (int i = 0; i < n; i++) {
                FakeOp op = new FakeOp(i, i % 5 == 4 ? "</script><b>x</b>" : "step" + (i % 4)).writes(v);
                if (i % 4 == 0) {
                    op.args = java.util.Map.of("epoch", (long) i); // shown in the bar's tooltip, not in its name
                }
                final FakeOp before = prev;
                long t = i * 1_000L;
                w.on("worker-" + (i % 3), () -> {
                    if (before != null) {
                        p.listener().released(before, op);
                    }
                    Fakes.run(p.listener(), op, t, t + 100, -1, t + 900);
                });
                prev = op;
            }
        }
        p.stop();
        return p;
    }

    @Test
    void pageIsSelfContained() throws IOException {
        Profiler p = chain(20);
        Path html = dir.resolve("t.html");
        p.writeHtml(html);
        String page = Files.readString(html, StandardCharsets.UTF_8);
        assertTrue(page.startsWith("<!DOCTYPE html>"));
        assertFalse(page.contains("http://") && page.replace("http://www.w3.org/2000/svg", "").contains("http://"),
                "no network references");
        assertFalse(page.contains("https://"));
        assertFalse(page.contains("<script src"));
        // the op name cannot close the data element: exactly two script elements are closed
        assertEquals(2, page.split("</script>", -1).length - 1);
    }

    @Test
    void chromiumDrawsOneBarPerOp() throws Exception {
        assumeChromium();
        int n = 40;
        Profiler p = chain(n);
        Path html = dir.resolve("timeline.html");
        p.writeHtml(html);

        String dom = chromium(html, "--dump-dom");
        assertRenderedWithoutScriptErrors(dom);
        assertEquals(n, count(dom, "<div class=\"op-bar[ \"]"), "op bars in the DOM");
        assertEquals(0, count(dom, "class=\"dep-arrow\""), "no arrows until an op is under the pointer or pinned");
        assertTrue(dom.contains((n - 1) + " dependencies"), "the summary counts them");
        assertEquals(4 + 1, count(dom, "<tr class=\"stat-row\""), "a statistics row per op name");
        assertTrue(count(dom, "<div class=\"tick\"") >= 3, "a time ruler");
        assertTrue(Pattern.compile("<div class=\"tick\"[^>]*>[0-9.]+ (ns|\u00b5s|ms|s)</div>").matcher(dom).find(),
                "ruler ticks carry units");
        assertTrue(dom.contains("<th>p50</th>") && dom.contains("<th>p99</th>"), "percentile columns");
        assertFalse(dom.contains("<th>Device total</th>"), "no device ops: the device columns are left out");

        // Pinned through the address: the middle op of the chain shows its two arrows, in and out.
        String pinned = chromiumAt(html.toUri() + "#op=" + n / 2, "--dump-dom"); // FakeOp ids are 0..n-1
        assertRenderedWithoutScriptErrors(pinned);
        assertEquals(2, count(pinned, "class=\"dep-arrow\""), "the pinned op's arrows only");
        assertTrue(dom.contains("data-name=\"step0\""));
        assertTrue(dom.contains("title=\"step0  epoch=0  #0 "), "an op's arguments are in its tooltip");
        assertTrue(dom.contains("worker-0") && dom.contains("worker-2"), "a lane per thread");

        Path png = dir.resolve("shot.png");
        chromium(html, "--screenshot=" + png);
        assertTrue(Files.size(png) > 0, "a screenshot was written");
        Png img = Png.decode(Files.readAllBytes(png));
        assertEquals(1200, img.width);
        assertTrue(img.distinctColours(1000) > 20, "the page is not blank: " + img.distinctColours(1000) + " colours");
    }

    @Test
    void knownDagPageHasDeviceBars() throws Exception {
        assumeChromium();
        Profiler p = ProfilerTraceTest.knownDag(Profiler.builder().build());
        Path html = dir.resolve("dag.html");
        p.writeHtml(html);
        String dom = chromium(html, "--dump-dom");
        assertRenderedWithoutScriptErrors(dom);
        assertEquals(4, count(dom, "<div class=\"op-bar[ \"]"));
        assertEquals(1, count(dom, "<div class=\"device-bar\""));
        assertTrue(dom.contains("<th>Device total</th>"), "a device op: the device columns are shown");
        assertTrue(dom.contains("stream COMPUTE#0"));
    }

    @Test
    void bulkMembersAreSubBarsInsideTheBulksBar() throws Exception {
        assumeChromium();
        Profiler p = BulkMembersTraceTest.bulkTrace(Profiler.builder().build());
        Path html = dir.resolve("bulk.html");
        p.writeHtml(html);
        String dom = chromium(html, "--dump-dom");
        assertRenderedWithoutScriptErrors(dom);
        Matcher bar = Pattern.compile("<div class=\"op-bar has-members\"[^>]*style=\"([^\"]*)\"[^>]*>"
                + Pattern.quote(BulkMembersTraceTest.BULK) + "((?:<div class=\"member-bar[^>]*>[^<]*</div>)+)</div>").matcher(dom);
        assertTrue(bar.find(), "the merged op's bar holds the member bars: " + dom);
        assertEquals(3, count(dom, "<div class=\"member-bar"), "a bar per member");
        assertEquals(3, count(bar.group(2), "<div class=\"member-bar"), "every member bar is inside the merged op's bar");
        double barWidth = px(bar.group(1), "width");
        List<String> members = new ArrayList<>();
        Matcher m = Pattern.compile("<div class=\"member-bar[^>]*>").matcher(bar.group(2));
        double[] expectedLeft = {50, 300, 850};   // ns into the 900 ns merged op
        double[] expectedWidth = {250, 500, 0};
        int i = 0;
        while (m.find()) {
            String tag = m.group();
            String name = attr(tag, "data-name");
            members.add(attr(tag, "class") + " " + name);
            assertTrue(attr(tag, "title").startsWith(name + "  member " + i + " of " + BulkMembersTraceTest.BULK),
                    "a tooltip per member: " + tag);
            double left = px(attr(tag, "style"), "left");
            double width = px(attr(tag, "style"), "width");
            assertEquals(barWidth * expectedLeft[i] / 900, left, 1.5, "member " + i + " starts where it ran: " + tag);
            assertEquals(Math.max(1, barWidth * expectedWidth[i] / 900), width, 1.5, "member " + i + "'s width is its run time");
            assertTrue(left >= 0 && left + width <= barWidth + 1, "inside the bar");
            i++;
        }
        assertEquals(List.of("member-bar load", "member-bar failed compute", "member-bar skipped store"), members);
        assertTrue(dom.contains("<td>load</td>") && dom.contains("<td>compute</td>"), "statistics rows of the members");
    }

    private static String attr(String tag, String name) {
        Matcher m = Pattern.compile("\\s" + name + "=\"([^\"]*)\"").matcher(tag);
        assertTrue(m.find(), name + " in " + tag);
        return m.group(1);
    }

    /** A length in px from an inline style, e.g. {@code width} of {@code "left: 3px; width: 12.5px;"}. */
    private static double px(String style, String property) {
        Matcher m = Pattern.compile("(?:^|;\\s*)" + property + ":\\s*([0-9.]+)px").matcher(style);
        assertTrue(m.find(), property + " in " + style);
        return Double.parseDouble(m.group(1));
    }

    /** Skips without Chromium, or fails where the build requires it (-Ddepengine.test.requireDevices=chromium). */
    private static void assumeChromium() {
        Requirements.assume("chromium", Files.isExecutable(CHROMIUM), "headless Chromium is needed at " + CHROMIUM
                + " (Debian package 'chromium'; or set -Ddepengine.test.chromium=PATH)");
    }

    /** The page's script ran to its end with no uncaught error. */
    private static void assertRenderedWithoutScriptErrors(String dom) {
        Matcher error = Pattern.compile("data-script-error=\"([^\"]*)\"").matcher(dom);
        assertFalse(error.find(), () -> "a script error: " + error.group(1));
        assertTrue(dom.contains("data-rendered=\"true\""), "the script did not finish building the page");
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    private String chromium(Path html, String what) throws Exception {
        return chromiumAt(html.toUri().toString(), what);
    }

    private String chromiumAt(String url, String what) throws Exception {
        Path profile = Files.createTempDirectory(dir, "chromium");
        List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--window-size=1200,800", what, url));
        Path out = dir.resolve("chromium-" + System.nanoTime() + ".out");
        Path err = dir.resolve("chromium-" + System.nanoTime() + ".err");
        Process proc = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!proc.waitFor(120, TimeUnit.SECONDS)) {
            proc.destroyForcibly();
            throw new AssertionError("chromium did not finish in 120 s: " + cmd);
        }
        assertEquals(0, proc.exitValue(), () -> "chromium failed: " + read(err));
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
