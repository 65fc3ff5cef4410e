package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.client.Client;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.util.ArrayList;
import java.util.concurrent.Callable;

/**
 * A task run on a member: the ids of the cluster's members and of the clients connected to that member
 * (a client worker connects to every member), so that a worker, member or client, can tell a rank
 * registered by a live worker from one left by a worker that is gone. A client cannot list the other
 * clients itself: only members can.
 */
public final class LiveEndpoints implements Callable<ArrayList<String>>, HazelcastInstanceAware,
        IdentifiedDataSerializable {
    private transient HazelcastInstance hz;

    /** For Hazelcast's factory and the caller. */
    public LiveEndpoints() {
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hz) {
        this.hz = hz;
    }

    @Override
    public ArrayList<String> call() {
        ArrayList<String> ids = new ArrayList<>();
        for (Member m : hz.getCluster().getMembers()) {
            ids.add(m.getUuid().toString());
        }
        for (Client c : hz.getClientService().getConnectedClients()) {
            ids.add(c.getUuid().toString());
        }
        return ids;
    }

    @Override
    public int getFactoryId() {
        return StateFactory.ID;
    }

    @Override
    public int getClassId() {
        return StateFactory.LIVE_ENDPOINTS;
    }

    @Override
    public void writeData(ObjectDataOutput out) {
        // no fields
    }

    @Override
    public void readData(ObjectDataInput in) {
        // no fields
    }
}
