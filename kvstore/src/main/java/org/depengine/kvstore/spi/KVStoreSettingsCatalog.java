package org.depengine.kvstore.spi;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;

/**
 * The settings every KVStore reads ({@link KVStoreSettings}'s getters), declared once for the project's
 * catalog. A store type's own settings are declared by the module that reads them.
 */
public final class KVStoreSettingsCatalog implements SettingsCatalog {
    /** {@code depengine.kvstore.rank}. */
    public static final Setting<Integer> RANK = Setting.ofInt(KVStore.PROPERTY_PREFIX + KVStoreSettings.RANK, 0, 0,
            Integer.MAX_VALUE - 1, "This worker's rank, below numWorkers (0 for local).");
    /** {@code depengine.kvstore.numWorkers}. */
    public static final Setting<Integer> NUM_WORKERS = Setting.ofInt(KVStore.PROPERTY_PREFIX + KVStoreSettings.NUM_WORKERS,
            1, 1, Integer.MAX_VALUE, "The number of workers of the job (local: 1); the same on every worker.");
    /**
     * {@code depengine.kvstore.timeoutMs}: at most {@link Integer#MAX_VALUE} ms (24.8 days), the longest
     * timeout a distributed store can hand to its transport.
     */
    public static final Setting<Duration> TIMEOUT = Setting.ofMillis(KVStore.PROPERTY_PREFIX + KVStoreSettings.TIMEOUT_MS,
            Duration.ofMillis(KVStoreSettings.DEFAULT_TIMEOUT_MS), Duration.ofMillis(1), Duration.ofMillis(Integer.MAX_VALUE),
            "A last resort: the longest a remote call waits for an answer, and a pull for progress on its key, before "
                    + "its op fails (a lost worker fails the calls that need it within seconds); minutes, so that a "
                    + "slow worker (a GC pause, an evaluation, a checkpoint) is waited for.");
    /** {@code depengine.kvstore.resume}. */
    public static final Setting<Path> RESUME = Setting.of(KVStore.PROPERTY_PREFIX + KVStoreSettings.RESUME, "a file path",
            null, "none", "A checkpoint written by KVStore.checkpoint: the store continues from it (every key's value, "
                    + "optimizer state and update count, and its period); on a distributed store every worker sets it "
                    + "and rank 0 reads the file.", KVStoreSettingsCatalog::path);

    /** For {@link java.util.ServiceLoader}. */
    public KVStoreSettingsCatalog() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(RANK, NUM_WORKERS, TIMEOUT, RESUME);
    }

    private static Path path(String text) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("empty");
        }
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
