package org.depengine.kvstore.hazelcast.peer;

import java.util.Map;

/** Told each view an elastic {@link PeerExchange} installs ({@link PeerExchange#onViewInstalled}). */
@FunctionalInterface
public interface ViewListener {
    /**
     * View {@code epoch} is installed here: this worker is rank {@code rank} of {@code workers}, and each key's
     * rounds up to its agreed round ({@link org.depengine.kvstore.hazelcast.protocol.ElasticRule#NOT_STARTED}:
     * none) were summed in the views before, the later ones in this one. Called under the exchange's lock:
     * hand it off, never block or call the exchange. No round is applied here until {@link PeerExchange#released}.
     *
     * @param joinPeriod where the view admits joiners, the period their rounds start in (they ended every period
     *     before it); -1 where it admits none
     */
    void installed(int epoch, int rank, int workers, Map<String, Long> agreed, int joinPeriod);
}
