package org.depengine.kvstore.hazelcast.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;
import org.depengine.kvstore.hazelcast.protocol.View;
import org.junit.jupiter.api.Test;

class ViewTextTest {
    private static final String A = UUID.randomUUID().toString();
    private static final String B = UUID.randomUUID().toString();

    @Test
    void everyViewReadsBackAsItselfWhateverItsCauseHolds() {
        List<String> causes = List.of("", "the job started", "a;b,c=d:e", ";members=x,y;cause=3:abc",
                "rank 1 (member 10.0.0.2:5701) left\nthe cluster\r\nat 12:03", "äöü 日本語 \uD83D\uDE80 \u0000 end",
                "cause=12:", "ends with a separator;", "\n");
        for (String cause : causes) {
            for (View v : List.of(new View(0, List.of(A), cause), new View(17, List.of(A, B, "c"), cause),
                    new View(999_999_999, List.of(B, A), cause))) {
                String text = ViewText.encode(v);
                assertEquals(v, ViewText.decode(text), text);
                assertEquals(text, ViewText.encode(ViewText.decode(text)), "canonical: " + text);
            }
        }
        assertEquals("epoch=3;members=" + A + "," + B + ";cause=4:a\nb;",
                ViewText.encode(new View(3, List.of(A, B), "a\nb;")));
    }

    @Test
    void idsThatCouldNotBeReadBackAreRefusedWhenWritten() {
        for (String id : List.of("", "a,b", "a;b")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ViewText.encode(new View(2, List.of(A, id), "x")));
            assertTrue(e.getMessage().contains("member id \"" + id + "\" of view 2 cannot be written"), e.getMessage());
        }
    }

    @Test
    void malformedTextIsRefusedNamingWhatIsWrong() {
        String good = ViewText.encode(new View(4, List.of(A, B), "b left"));
        assertEquals(new View(4, List.of(A, B), "b left"), ViewText.decode(good));
        String[][] cases = {
            {null, "no view text (null)"},
            {"", "it does not start with 'epoch='"},
            {"members=a;cause=0:", "it does not start with 'epoch='"},
            {"epoch=4;cause=0:", "no ';members=' field after the epoch"},
            {"epoch=;members=a;cause=0:", "the epoch \"\" is not a number"},
            {"epoch=-1;members=a;cause=0:", "the epoch \"-1\" is not a number"},
            {"epoch=04;members=a;cause=0:", "the epoch \"04\" is not a number"},
            {"epoch=x4;members=a;cause=0:", "the epoch \"x4\" is not a number"},
            {"epoch=12345678901;members=a;cause=0:", "the epoch \"12345678901\" is not a number"},
            {"epoch=4;members=a,b", "no ';cause=' field after the members"},
            {"epoch=4;members=;cause=0:", "an empty member id"},
            {"epoch=4;members=a,,b;cause=0:", "an empty member id"},
            {"epoch=4;members=a,b,;cause=0:", "an empty member id"},
            {"epoch=4;members=a,b;cause=b left", "the cause has no '<length>:' before it"},
            {"epoch=4;members=a,b;cause=:b left", "the cause's length \"\" is not a number"},
            {"epoch=4;members=a,b;cause=7:b left", "the cause is 6 chars long, its length says 7 (the text was cut off)"},
            {"epoch=4;members=a,b;cause=5:b left", "the cause is 6 chars long, its length says 5 (something follows it)"},
            {"epoch=4;members=a,b,a;cause=0:", "member a is listed twice in view 4"},
        };
        for (String[] c : cases) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ViewText.decode(c[0]),
                    String.valueOf(c[0]));
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
            if (c[0] != null) {
                assertTrue(e.getMessage().startsWith("not a view's text: "), e.getMessage());
            }
        }
        // A long bad text is quoted shortened, with its line breaks shown.
        String longBad = "epoch=1;members=a;cause=1:" + "x\n".repeat(200);
        String m = assertThrows(IllegalArgumentException.class, () -> ViewText.decode(longBad)).getMessage();
        assertTrue(m.contains("x\\nx\\n") && m.contains("...") && m.length() < 400, m);
    }
}
