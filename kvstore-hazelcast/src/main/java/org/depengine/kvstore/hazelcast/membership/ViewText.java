package org.depengine.kvstore.hazelcast.membership;

import java.util.ArrayList;
import java.util.List;
import org.depengine.kvstore.hazelcast.protocol.View;

/**
 * The text form of a {@link View} in the job's {@code shared} map ({@link ViewLog}):
 * {@code epoch=<e>;members=<id>,<id>,...;cause=<length>:<cause>}. The cause is the last field and carries
 * its length (in {@code char}s), so it may hold anything (separators, newlines, any Unicode) and a cut-off
 * text is seen. Member ids are opaque but may hold neither {@code ','} nor {@code ';'} and may not be empty
 * (Hazelcast's endpoint UUIDs never do).
 *
 * <p>The form is canonical: one view has exactly one text, and {@link #decode} accepts only that text, so
 * the texts can be compared as they are ({@code IMap.replace(key, old, new)} compares values, not views).
 * Pure and stateless.
 */
final class ViewText {
    private static final String EPOCH = "epoch=";
    private static final String MEMBERS = ";members=";
    private static final String CAUSE = ";cause=";
    private static final int QUOTED = 120;

    private ViewText() {
    }

    /**
     * The text of {@code v}.
     *
     * @throws IllegalArgumentException if a member id is empty or holds {@code ','} or {@code ';'}: it
     *     could not be read back as the same view
     */
    static String encode(View v) {
        StringBuilder sb = new StringBuilder(EPOCH).append(v.epoch()).append(MEMBERS);
        for (int i = 0; i < v.members().size(); i++) {
            String m = v.members().get(i);
            if (m.isEmpty() || m.indexOf(',') >= 0 || m.indexOf(';') >= 0) {
                throw new IllegalArgumentException("member id \"" + m + "\" of view " + v.epoch()
                        + " cannot be written: an id is not empty and holds neither ',' nor ';'");
            }
            sb.append(i == 0 ? "" : ",").append(m);
        }
        return sb.append(CAUSE).append(v.cause().length()).append(':').append(v.cause()).toString();
    }

    /**
     * The view {@code text} encodes.
     *
     * @throws IllegalArgumentException naming what is wrong, if {@code text} is null or not a view's text
     *     as {@link #encode} writes it (a field missing or out of order, an epoch that is not a number, an
     *     empty or repeated member id, a cause shorter or longer than its length says)
     */
    static View decode(String text) {
        if (text == null) {
            throw new IllegalArgumentException("no view text (null)");
        }
        if (!text.startsWith(EPOCH)) {
            throw bad(text, "it does not start with '" + EPOCH + "'");
        }
        int membersAt = text.indexOf(MEMBERS, EPOCH.length());
        if (membersAt < 0) {
            throw bad(text, "no '" + MEMBERS + "' field after the epoch");
        }
        int epoch = number(text, text.substring(EPOCH.length(), membersAt), "the epoch");
        int causeAt = text.indexOf(CAUSE, membersAt + MEMBERS.length());
        if (causeAt < 0) {
            throw bad(text, "no '" + CAUSE + "' field after the members");
        }
        List<String> members = new ArrayList<>();
        for (String m : text.substring(membersAt + MEMBERS.length(), causeAt).split(",", -1)) {
            if (m.isEmpty()) {
                throw bad(text, "an empty member id (the members are ids separated by ',')");
            }
            members.add(m);
        }
        int lengthAt = causeAt + CAUSE.length();
        int colon = text.indexOf(':', lengthAt);
        if (colon < 0) {
            throw bad(text, "the cause has no '<length>:' before it");
        }
        int length = number(text, text.substring(lengthAt, colon), "the cause's length");
        int got = text.length() - colon - 1;
        if (got != length) {
            throw bad(text, "the cause is " + got + " chars long, its length says " + length
                    + (got < length ? " (the text was cut off)" : " (something follows it)"));
        }
        try {
            return new View(epoch, members, text.substring(colon + 1));
        } catch (IllegalArgumentException e) {
            throw bad(text, e.getMessage());
        }
    }

    /** A decimal number of at most 9 digits, without sign or leading zeros (so the text stays canonical). */
    private static int number(String text, String digits, String what) {
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')
                || (digits.length() > 1 && digits.charAt(0) == '0')) {
            throw bad(text, what + " \"" + quote(digits) + "\" is not a number from 0 to 999999999 written plainly");
        }
        return Integer.parseInt(digits);
    }

    private static IllegalArgumentException bad(String text, String what) {
        return new IllegalArgumentException("not a view's text: " + what + "; the text was \"" + quote(text) + "\"");
    }

    /** {@code s}, shortened to its start if long, with line breaks shown as {@code \n}, for a message. */
    private static String quote(String s) {
        String q = s.length() > QUOTED ? s.substring(0, QUOTED) + "..." : s;
        return q.replace("\r", "\\r").replace("\n", "\\n");
    }
}
