package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.JavaSerializationFilterConfig;
import java.util.List;
import org.depengine.kvstore.Updater;

/**
 * The updater classes a key's owner accepts. Updaters reach the owner by Java deserialization, which
 * would run code of any class on its class path a peer names; so members (and clients) deserialize, of
 * the project's and the user's classes, only the built-in updaters and the classes registered in
 * {@code depengine.kvstore.updaterClasses} (Hazelcast's Java serialization filter in whitelist mode,
 * Hazelcast's own defaults kept). A worker refuses a foreign updater at {@code setUpdater}; an owner
 * that receives one anyway (another worker registered it, this member did not) fails the op, and the
 * worker's call names the class and the setting.
 */
public final class UpdaterClasses {
    /** The built-in updaters' classes, always accepted. */
    static final List<String> BUILT_INS = List.of(org.depengine.kvstore.optimizers.Assign.class.getName(), org.depengine.kvstore.optimizers.Sum.class.getName(),
            org.depengine.kvstore.optimizers.Sgd.class.getName(), org.depengine.kvstore.optimizers.StatefulUpdater.class.getName(), org.depengine.kvstore.optimizers.MomentumSgd.class.getName(),
            org.depengine.kvstore.optimizers.Adam.class.getName());

    private UpdaterClasses() {
    }

    /**
     * The filter members and clients deserialize with: the built-ins and {@code registered} allowed, a
     * serialized lambda refused (it names its capturing class, which is never checked).
     */
    public static JavaSerializationFilterConfig filter(List<String> registered) {
        ClassFilter allowed = new ClassFilter();
        BUILT_INS.forEach(allowed::addClasses);
        registered.forEach(allowed::addClasses);
        ClassFilter refused = new ClassFilter().addClasses("java.lang.invoke.SerializedLambda");
        return new JavaSerializationFilterConfig().setWhitelist(allowed).setBlacklist(refused);
    }

    /**
     * Refuses {@code updater} unless its class is a built-in or in {@code registered}.
     *
     * @throws IllegalArgumentException naming the class and the setting to register it in
     */
    public static void check(Updater updater, List<String> registered) {
        String name = updater.getClass().getName();
        if (!BUILT_INS.contains(name) && !registered.contains(name)) {
            throw new IllegalArgumentException(RefusedUpdaters.text(name));
        }
    }

    /**
     * The refusal of a foreign class, if Hazelcast's filter refused one on the way to {@code err}; else null.
     */
    public static String refusal(Throwable err) {
        String refused = RefusedUpdaters.refusedClass(err);
        return refused == null ? null : "the key's owner refused to deserialize " + RefusedUpdaters.text(refused);
    }
}
