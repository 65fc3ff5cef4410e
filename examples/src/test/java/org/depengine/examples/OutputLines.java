package org.depengine.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * A process's output read on a thread of its own, as it comes: {@link #seen} completes at the first line that
 * matches a pattern (or fails if the output ends first), {@link #text} at the end of the output; {@link #sofar}
 * holds what came until now.
 */
final class OutputLines {
    final CompletableFuture<Void> seen = new CompletableFuture<>();
    final CompletableFuture<String> text = new CompletableFuture<>();
    final StringBuffer sofar = new StringBuffer();

    OutputLines(Process p, Pattern awaited, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    sofar.append(line).append('\n');
                    if (awaited.matcher(line).find()) {
                        seen.complete(null);
                    }
                }
                seen.completeExceptionally(new AssertionError(name + " ended before a line matching " + awaited + ":\n"
                        + sofar));
                text.complete(sofar.toString());
            } catch (IOException | RuntimeException e) {
                seen.completeExceptionally(e);
                text.completeExceptionally(e);
            }
        }, name + " output");
        t.setDaemon(true);
        t.start();
    }
}
