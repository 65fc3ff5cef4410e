package org.depengine.kvstore.hazelcast.peer;

import java.util.Map;

/**
 * Told each view an elastic job's data path installs: a {@link PeerExchange} ({@link PeerExchange#onViewInstalled}),
 * or the keys' owners ({@code updateOn=server}, {@code dist_async}: the store's {@code ServerPath}).
 */
@FunctionalInterface
public interface ViewListener {
    /**
     * View {@code epoch} is installed here: this worker is rank {@code rank} of {@code workers}, and each key's
     * rounds up to its agreed round ({@link org.depengine.kvstore.hazelcast.protocol.ElasticRule#NOT_STARTED}:
     * none) were summed in the views before, the later ones in this one. Called under the exchange's lock (or on
     * the thread of the last owner's answer): hand it off, never block or call the path. No round of the view is
     * seen here until the path is released ({@link PeerExchange#released}).
     *
     * @param joinPeriod where the view admits joiners, the period their rounds start in (they ended every period
     *     before it); -1 where it admits none
     */
    void installed(int epoch, int rank, int workers, Map<String, Long> agreed, int joinPeriod);
}
