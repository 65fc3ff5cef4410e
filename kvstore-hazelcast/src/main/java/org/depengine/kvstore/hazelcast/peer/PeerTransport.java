package org.depengine.kvstore.hazelcast.peer;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator.DelegatingHandle;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workers' data transport of {@code updateOn=worker}, on Netty: each worker listens on one port and
 * opens one connection to every other worker, on which it sends; what it receives comes on the
 * connections the others opened to it. So the frames from one worker to another arrive in the order it
 * sent them (the protocol relies on it: a rank's END of a period follows its pushes of the period, a
 * reducer's CLOSED follows its sums). A frame's payload is read straight into the buffer the
 * {@link Inbound} gives for it (one copy from the socket's buffer), and sent from the caller's buffer (no
 * copy). The event loops are shared by every store of the process.
 *
 * <p>Thread-safe; {@link #send} may be called from any thread (the caller orders its sends to one peer).
 */
final class PeerTransport implements Wire {
    private static final Logger LOG = LoggerFactory.getLogger(PeerTransport.class);
    private static final Object LOOPS_LOCK = new Object();
    private static EventLoopGroup loops;
    private static int users;

    /** What the transport hands to the protocol; called on an event loop thread. */
    interface Inbound {
        /**
         * Where the payload of {@code f} from {@code from} goes: a buffer with {@code f.payloadBytes()}
         * writable bytes (its writer index moves as they arrive), or null to drop it.
         */
        ByteBuf target(int from, Frame f);

        /** Frame {@code f} from {@code from} has arrived, with its payload in {@code payload} (null if dropped or none). */
        void received(int from, Frame f, ByteBuf payload);

        /** The connection from {@code from} closed, with or without a goodbye first. */
        void disconnected(int from, boolean saidBye, String why);
    }

    private final int rank;
    private final String jobId;
    private final Inbound inbound;
    private final EventLoopGroup group;
    private final Channel server;
    private final Map<Integer, Channel> out = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Listens on {@code bind}; the port actually bound is {@link #port()}. */
    PeerTransport(int rank, String jobId, InetSocketAddress bind, Inbound inbound) {
        this.rank = rank;
        this.jobId = jobId;
        this.inbound = inbound;
        this.group = acquireLoops();
        try {
            server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        @SuppressWarnings("deprecation") // newHandle()'s declared type is the deprecated Handle: Netty's API
                        protected void initChannel(SocketChannel ch) {
                            Reader reader = new Reader();
                            RecvByteBufAllocator usual = ch.config().getRecvByteBufAllocator();
                            ch.config().setRecvByteBufAllocator(() -> new DelegatingHandle(usual.newHandle()) {
                                @Override
                                public ByteBuf allocate(ByteBufAllocator alloc) {
                                    ByteBuf into = reader.readInto();
                                    return into != null ? into : super.allocate(alloc);
                                }
                            });
                            ch.pipeline().addLast(reader);
                        }
                    }).bind(bind).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            releaseLoops();
            throw e;
        }
    }

    /** The port this worker's transport listens on. */
    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The allocator of payload buffers. */
    static ByteBufAllocator alloc() {
        return PooledByteBufAllocator.DEFAULT;
    }

    /** Whether this transport has an open connection to {@code peer}. */
    boolean connected(int peer) {
        Channel ch = out.get(peer);
        return ch != null && ch.isActive();
    }

    /**
     * Connects to rank {@code peer} at {@code address} and says hello; bounded by {@code timeoutMs}.
     *
     * @throws java.io.UncheckedIOException (Netty's connect failure) if it cannot connect
     */
    void connect(int peer, InetSocketAddress address, long timeoutMs) {
        ChannelFuture f = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMs))
                .handler(new Outgoing(peer)).connect(address);
        if (!f.awaitUninterruptibly(timeoutMs, TimeUnit.MILLISECONDS) || !f.isSuccess()) {
            throw new IllegalStateException("cannot reach rank " + peer + "'s data transport at " + address
                    + (f.cause() == null ? " within " + timeoutMs + " ms" : ": " + f.cause()), f.cause());
        }
        Channel ch = f.channel();
        out.put(peer, ch);
        ch.writeAndFlush(Frame.hello(rank, jobId, ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN)
                .encode(ch.alloc()));
    }

    /**
     * Sends {@code f} to {@code peer} with {@code payload} (its readable bytes; released once written; null
     * for none), calling {@code onWritten} (from an event loop, or at once) once the payload has left for the
     * socket or never will. A frame to a peer whose connection is gone is dropped (the loss is reported on its own).
     */
    @Override
    public void send(int peer, Frame f, ByteBuf payload, Runnable onWritten) {
        Channel ch = out.get(peer);
        if (ch == null || !ch.isActive()) {
            if (payload != null) {
                payload.release();
            }
            if (onWritten != null) {
                onWritten.run();
            }
            return;
        }
        // One write per frame (header and payload one composite buffer, no copy), always queued on the channel's
        // event loop: a write made on the loop itself would run at once, ahead of the frames other threads queued
        // before it, and the protocol needs each peer's frames in the order they were sent.
        ByteBuf header = f.encode(ch.alloc());
        ByteBuf frame = payload == null ? header : Unpooled.wrappedBuffer(header, payload);
        ChannelPromise promise = onWritten == null ? ch.voidPromise() : ch.newPromise();
        if (onWritten != null) {
            promise.addListener(x -> onWritten.run());
        }
        ch.eventLoop().execute(() -> ch.writeAndFlush(frame, promise));
    }

    /** Closes the connections and the port; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Channel ch : out.values()) {
            ch.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        releaseLoops();
    }

    private static EventLoopGroup acquireLoops() {
        synchronized (LOOPS_LOCK) {
            if (users++ == 0) {
                loops = new MultiThreadIoEventLoopGroup(Math.min(2, Runtime.getRuntime().availableProcessors()),
                        new DefaultThreadFactory("depengine-kv-data", true), NioIoHandler.newFactory());
            }
            return loops;
        }
    }

    private static void releaseLoops() {
        synchronized (LOOPS_LOCK) {
            if (--users == 0) {
                loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                loops = null;
            }
        }
    }

    /**
     * The end of a connection this worker opened, which only sends: a failure on it (the peer reset it: it died,
     * or its link went) closes it. It is no verdict here: what a lost peer fails is the membership's to say (or,
     * without elasticity, the peer's own connection to this worker closing), and Netty would log it as a warning.
     */
    private final class Outgoing extends ChannelInboundHandlerAdapter {
        private final int peer;

        Outgoing(int peer) {
            this.peer = peer;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("rank {}: data connection to worker {} failed, closing it: {}", rank, peer, cause.toString());
            ctx.close();
        }
    }

    /**
     * Reads the frames of one connection another worker opened: the two lengths, the header, then the
     * payload copied into the buffer the protocol gives for it as the socket's bytes come.
     */
    private final class Reader extends ChannelInboundHandlerAdapter {
        private final ByteBuf head = ByteBufAllocator.DEFAULT.heapBuffer(256);
        private int headerBytes = -1;
        private int payloadBytes;
        private Frame frame;
        private ByteBuf target;
        private int payloadLeft;
        private int from = -1;
        private boolean bye;

        /** The part of the payload's target the socket is being read into now, or null. */
        private ByteBuf into;

        /**
         * Where the channel reads next: while a payload is due and has a target, the rest of that target
         * itself (the socket's bytes land where they go, no copy); else null (the channel's own buffers).
         */
        ByteBuf readInto() {
            if (frame == null || target == null || payloadLeft == 0) {
                return null;
            }
            into = target.retainedSlice(target.writerIndex(), payloadLeft).clear();
            return into;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            if (in == into) {
                into = null;
                int n = in.writerIndex();
                in.release();
                target.writerIndex(target.writerIndex() + n);
                payloadLeft -= n;
                if (payloadLeft == 0) {
                    deliver(ctx);
                }
                return;
            }
            try {
                while (in.isReadable() && ctx.channel().isActive()) {
                    if (frame == null) {
                        readHeader(ctx, in);
                    } else {
                        int n = Math.min(payloadLeft, in.readableBytes());
                        if (target != null) {
                            target.writeBytes(in, n);
                        } else {
                            in.skipBytes(n);
                        }
                        payloadLeft -= n;
                        if (payloadLeft == 0) {
                            deliver(ctx);
                        }
                    }
                }
            } finally {
                in.release();
            }
        }

        private void readHeader(ChannelHandlerContext ctx, ByteBuf in) {
            int want = headerBytes < 0 ? Frame.PREFIX_BYTES : headerBytes;
            int n = Math.min(want - head.readableBytes(), in.readableBytes());
            head.writeBytes(in, n);
            if (head.readableBytes() < want) {
                return;
            }
            if (headerBytes < 0) {
                headerBytes = head.readInt();
                payloadBytes = head.readInt();
                head.clear();
                return;
            }
            frame = Frame.decode(head, payloadBytes);
            head.clear();
            headerBytes = -1;
            if (from < 0) {
                hello(ctx, frame);
                frame = null;
                return;
            }
            payloadLeft = payloadBytes;
            target = payloadBytes == 0 ? null : inbound.target(from, frame);
            if (payloadLeft == 0) {
                deliver(ctx);
            }
        }

        private void hello(ChannelHandlerContext ctx, Frame f) {
            boolean bigEndian = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;
            if (f.type() != Frame.Type.HELLO || !jobId.equals(f.key()) || (f.length() == 1) != bigEndian) {
                LOG.warn("rank {}: refused a data connection from {}: {}", rank, ctx.channel().remoteAddress(),
                        f.type() != Frame.Type.HELLO ? "it did not say hello" : !jobId.equals(f.key())
                                ? "it is of job '" + f.key() + "', not '" + jobId + "'"
                                : "its byte order differs from this worker's (every worker of a job needs one order)");
                ctx.close();
                return;
            }
            from = f.rank();
        }

        private void deliver(ChannelHandlerContext ctx) {
            Frame f = frame;
            ByteBuf payload = target;
            frame = null;
            target = null;
            if (f.type() == Frame.Type.BYE) {
                bye = true;
            }
            inbound.received(from, f, payload);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            head.release();
            if (target != null) {
                target.release();
                target = null;
            }
            if (from >= 0 && !closed) {
                inbound.disconnected(from, bye, "worker rank " + from + " left the job: its data connection (from "
                        + ctx.channel().remoteAddress() + ") closed");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("rank {}: data connection from rank {} failed, closing it: {}", rank, from, cause.toString(), cause);
            ctx.close();
        }
    }
}
