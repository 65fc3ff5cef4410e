package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.ObjectDataInput;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.Updater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Updater classes that Hazelcast's Java serialization filter refuses (the classes neither built in nor
 * registered in {@value #PROPERTY}): how to say so, how to recognise the refusal in an error, and the
 * owner's side of it. The worker whose op carried the class gets the refusal with its call; the member
 * that refused it also logs it, once per class, so that whoever runs that member sees what to register.
 */
public final class RefusedUpdaters {
    /** The setting that registers updater classes. */
    public static final String PROPERTY = KVStore.PROPERTY_PREFIX + "updaterClasses";
    private static final Logger LOG = LoggerFactory.getLogger(RefusedUpdaters.class);
    /** What Hazelcast's filter says of a class it refuses. */
    private static final Pattern REFUSED = Pattern.compile("Resolving class (\\S+?) is not allowed");
    /** The classes this member has logged: one line each, however many ops carry them. */
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private RefusedUpdaters() {
    }

    /** Why {@code className} is refused, and what to do. */
    public static String text(String className) {
        return "updater class " + className + ": a key's owner deserializes only the built-in updaters and the "
                + "classes registered in " + PROPERTY + "; add " + className + " (and the classes of its fields) to "
                + PROPERTY + " on every worker and cluster member (a named class, not a lambda)";
    }

    /** The class Hazelcast's filter refused on the way to {@code err}, or null if it refused none. */
    public static String refusedClass(Throwable err) {
        for (Throwable t = err; t != null; t = t.getCause() == t ? null : t.getCause()) {
            Matcher m = t.getMessage() == null ? null : REFUSED.matcher(t.getMessage());
            if (m != null && m.find()) {
                return m.group(1);
            }
        }
        return null;
    }

    /** Reads an updater on a member; a refused class is logged (once) at WARN before the refusal goes on. */
    static Updater read(ObjectDataInput in, String where) throws IOException {
        try {
            return UpdaterWire.read(in);
        } catch (RuntimeException e) {
            String refused = refusedClass(e);
            if (refused != null && LOGGED.add(refused)) {
                LOG.warn("this member refused {} ({}); the op that carried it fails", text(refused), where);
            }
            throw e;
        }
    }
}
