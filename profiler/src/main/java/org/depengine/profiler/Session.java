package org.depengine.profiler;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.depengine.api.Context;

/**
 * One recording session: the rings of the threads that recorded, and the tables their records'
 * ids refer to. {@link Profiler#clear()} replaces the session; writers notice on their next record.
 * Not part of the API.
 */
final class Session {
    final long startNanos = System.nanoTime();
    final int ringCapacity;
    final int maxRings;
    final Interner<String> opNames;
    final Interner<String> varNames;
    /** Argument keys, and text argument values. */
    final Interner<String> argKeys;
    final Interner<String> argTexts;
    final Interner<Context> contexts;
    final StreamTable streams;
    /** Records of threads that got no ring (too many threads) or of rings evicted to make room. */
    final LongAdder lostRecords = new LongAdder();
    /** The ring handed to threads refused a ring of their own: never written. */
    final Ring refused;

    private final List<Ring> rings = new ArrayList<>(); // guarded by this
    private int nextIndex; // guarded by this

    Session(int ringCapacity, int maxRings, int maxNames, int maxVarNames) {
        this.ringCapacity = ringCapacity;
        this.maxRings = maxRings;
        this.opNames = new Interner<>(maxNames);
        this.varNames = new Interner<>(maxVarNames);
        this.argKeys = new Interner<>(1024);
        this.argTexts = new Interner<>(maxNames);
        this.contexts = new Interner<>(4096);
        this.streams = new StreamTable(4096);
        this.refused = new Ring(-1, this, Thread.currentThread(), 1);
    }

    /**
     * A new ring for the calling thread, or {@link #refused} when {@code maxRings} rings exist and
     * none belongs to a thread that has died (such a ring is evicted, its records counted as lost).
     */
    synchronized Ring newRing(Thread owner) {
        if (rings.size() >= maxRings) {
            Ring dead = null;
            for (Ring r : rings) {
                Thread t = r.thread.get();
                if (t == null || !t.isAlive()) {
                    dead = r;
                    break;
                }
            }
            if (dead == null) {
                return refused;
            }
            rings.remove(dead);
            lostRecords.add(dead.written() - dead.dropped());
        }
        Ring r = new Ring(nextIndex++, this, owner, ringCapacity);
        rings.add(r);
        return r;
    }

    synchronized List<Ring> rings() {
        return new ArrayList<>(rings);
    }
}
