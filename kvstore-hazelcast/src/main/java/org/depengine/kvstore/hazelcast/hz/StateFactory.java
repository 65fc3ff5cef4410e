package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

/**
 * Creates the key-state types (and the {@link LiveEndpoints} task) by id when Hazelcast deserializes them: no reflection, so they work
 * on the module path without opening this package. Register it on every member and client.
 */
public final class StateFactory implements DataSerializableFactory {
    /** The factory id, unique in the cluster's serialization config. */
    public static final int ID = 0x6465_7031; // "dep1"
    static final int KEY_STATE = 1;
    static final int REPLY = 2;
    static final int INIT = 3;
    static final int PUSH = 4;
    static final int READ = 5;
    static final int RANK = 6;
    static final int LIVE_ENDPOINTS = 7;
    static final int STATE_BACKUP = 8;
    static final int TOLD_RANKS = 9;

    @Override
    public IdentifiedDataSerializable create(int typeId) {
        return switch (typeId) {
            case KEY_STATE -> new KeyState();
            case REPLY -> new Reply();
            case INIT -> new InitOp();
            case PUSH -> new PushOp();
            case READ -> new ReadOp();
            case RANK -> new RankOp();
            case LIVE_ENDPOINTS -> new LiveEndpoints();
            case STATE_BACKUP -> new StateBackup();
            case TOLD_RANKS -> new ToldRanks();
            default -> throw new IllegalArgumentException("unknown depengine kvstore type id " + typeId);
        };
    }
}
