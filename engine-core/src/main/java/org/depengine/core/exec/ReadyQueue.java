package org.depengine.core.exec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.AbstractQueue;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.depengine.core.tracker.OpBlock;

/**
 * The FIFO queue of a worker group's ready ops: unbounded, lock-free, for any number of producers
 * (the pusher, workers handing on released ops) and consumers (the group's workers). It does what
 * {@link java.util.concurrent.ConcurrentLinkedQueue} did here with less traffic between the pusher's
 * and the workers' cores: an offer is one atomic exchange on the tail, a poll one CAS on the head, and
 * the two ends sit on different cache lines, so a pusher offering and a worker polling do not steal
 * one line from each other on every op.
 *
 * <p>Weakly consistent: an offer takes its place in the FIFO order when it starts, and becomes visible
 * to {@link #poll} (and {@link #isEmpty}) once it and every offer placed before it have returned, so a
 * poll may miss ops while an earlier offer is still in progress. A worker group copes: every submitter
 * looks for a worker to wake after its offer returns. {@link #size} and the iterator are approximate.
 * Null elements are refused.
 */
final class ReadyQueue extends AbstractQueue<OpBlock> {
    /*
     * Implementation overview.
     *
     * A singly linked list with a dummy first node:  head (dummy) -> n1 -> n2 -> ... -> tail.
     *   offer: n = new Node(op); prev = tail.getAndSet(n); prev.next = n (volatile store).
     *          Producers are ordered by the exchange; until the store links n, the list ends at prev,
     *          so a poll in that window sees the queue end early (the weak consistency above). A
     *          producer that must wake a consumer reads the consumers' state after the store.
     *   poll:  h = head; n = h.next; if n == null: empty. op = n.op; if CAS(head, h, n): n.op = null
     *          (n is the new dummy, and must not keep its op reachable), return op; else retry.
     *          Only the winner of the CAS from h to n returns n's op and clears it: a loser read it
     *          for a CAS that failed. A node is never linked twice, so no ABA.
     * The head and the tail are padded apart (superclass fields come first in an object).
     */

    static final class Node {
        volatile OpBlock op;
        volatile Node next;

        Node(OpBlock op) {
            this.op = op;
        }
    }

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(Head.class, "head", Node.class);
            TAIL = l.findVarHandle(Tail.class, "tail", Node.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Ends ends = new Ends();

    ReadyQueue() {
        Node dummy = new Node(null);
        ends.head = dummy;
        ends.tail = dummy;
        VarHandle.releaseFence(); // published with the group, before its workers start
    }

    @Override
    public boolean offer(OpBlock op) {
        if (op == null) {
            throw new NullPointerException("op");
        }
        Node n = new Node(op);
        Node prev = (Node) TAIL.getAndSet((Tail) ends, n);
        prev.next = n;
        return true;
    }

    @Override
    public OpBlock poll() {
        while (true) {
            Node h = ends.head;
            Node n = h.next;
            if (n == null) {
                return null;
            }
            OpBlock op = n.op;
            if (HEAD.compareAndSet((Head) ends, h, n)) {
                n.op = null;
                return op;
            }
        }
    }

    @Override
    public OpBlock peek() {
        while (true) {
            Node h = ends.head;
            Node n = h.next;
            if (n == null) {
                return null;
            }
            OpBlock op = n.op;
            if (op != null && ends.head == h) {
                return op;
            }
        }
    }

    @Override
    public boolean isEmpty() {
        return ends.head.next == null;
    }

    /** The ops queued now (approximate under concurrent offers and polls; walks the list). */
    @Override
    public int size() {
        int n = 0;
        for (Node x = ends.head.next; x != null && n < Integer.MAX_VALUE; x = x.next) {
            if (x.op != null) {
                n++;
            }
        }
        return n;
    }

    /** A weakly consistent iterator (for diagnostics); {@code remove} is not supported. */
    @Override
    public Iterator<OpBlock> iterator() {
        return new Iterator<>() {
            private Node at = ends.head;
            private OpBlock next = advance();

            private OpBlock advance() {
                for (Node x = at.next; x != null; x = x.next) {
                    at = x;
                    OpBlock op = x.op;
                    if (op != null) {
                        return op;
                    }
                }
                return null;
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public OpBlock next() {
                OpBlock op = next;
                if (op == null) {
                    throw new NoSuchElementException();
                }
                next = advance();
                return op;
            }
        };
    }

    // Field layout: padding, the consumers' head, padding, the producers' tail, padding.
    @SuppressWarnings("unused")
    abstract static class Pad0 {
        long p00, p01, p02, p03, p04, p05, p06, p07;
    }

    abstract static class Head extends Pad0 {
        volatile Node head;
    }

    @SuppressWarnings("unused")
    abstract static class Pad1 extends Head {
        long p10, p11, p12, p13, p14, p15, p16, p17;
    }

    abstract static class Tail extends Pad1 {
        volatile Node tail;
    }

    @SuppressWarnings("unused")
    static final class Ends extends Tail {
        long p20, p21, p22, p23, p24, p25, p26, p27;
    }
}
