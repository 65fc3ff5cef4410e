package org.depengine.examples;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;

/**
 * The socket baseline of {@link KVStoreModelStep}: bytes written to a TCP echo server and read back on
 * one connection, the writes on a thread of their own so that a buffer larger than the sockets' never
 * deadlocks. Between two hosts it measures what their link carries each way at once; the server echoes
 * every connection it accepts until the client closes it. Not thread-safe (one caller per client).
 */
final class TcpEcho implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    private TcpEcho(InetSocketAddress server) throws IOException {
        socket = new Socket(server.getAddress(), server.getPort());
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
    }

    /** A client of the echo server at {@code server}. */
    static TcpEcho connect(InetSocketAddress server) throws IOException {
        return new TcpEcho(server);
    }

    /** Sends {@code data} and reads it back; returns the nanoseconds that took. */
    long roundTrip(byte[] data) throws IOException {
        long t0 = System.nanoTime();
        CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
            try {
                out.write(data);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        in.readFully(data);
        w.join();
        return System.nanoTime() - t0;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /**
     * Starts an echo server on {@code bind:port} (a daemon thread per connection); closing the returned
     * socket stops it accepting.
     */
    static ServerSocket serve(InetAddress bind, int port) throws IOException {
        ServerSocket server = new ServerSocket(port, 4, bind);
        Thread accept = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread echo = new Thread(() -> echo(s), "echo " + s.getRemoteSocketAddress());
                    echo.setDaemon(true);
                    echo.start();
                } catch (IOException e) {
                    return; // closed
                }
            }
        }, "echo server " + bind.getHostAddress() + ":" + port);
        accept.setDaemon(true);
        accept.start();
        return server;
    }

    private static void echo(Socket s) {
        try (s; InputStream i = s.getInputStream(); OutputStream o = s.getOutputStream()) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = i.read(buf)) > 0; ) {
                o.write(buf, 0, n);
            }
        } catch (IOException e) {
            // the client closed its end
        }
    }
}
