package com.example.crawl.egress.discovery;

import com.example.crawl.egress.clock.NanoClock;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Passes a lease call on to the leader: HTTP/1.1 on connections kept open to it, one call at a
 * time on each, on the calling (virtual) thread. A forwarded pair is the hot path of a follower,
 * and the JDK's {@code HttpClient} (its selector thread, futures and per-request objects) cost more
 * CPU than the leader's own handling of the call; this writes the request in one piece and reads
 * the answer with one buffered stream.
 *
 * <p>It speaks to the operator's own discovery server and to nothing else: a status line, header
 * lines, and a body of {@code Content-Length} bytes or {@code chunked}. Heads are bounded
 * ({@value #MAX_HEAD} bytes), bodies too ({@value #MAX_BODY}); anything else is an
 * {@link IOException}, which the caller answers with 503.
 *
 * <p>An idle connection is used again only while it has been idle less than {@link #IDLE_LIMIT},
 * well within the JDK server's 30 s; at most {@value #MAX_IDLE} are kept, and those to an earlier
 * leader are closed when found. A server may still close an idle connection at any time (the JDK's
 * closes one at once when it holds too many idle), so a call that fails on a reused connection
 * before any byte of the answer arrived is sent once more on a new one (one that times out is not:
 * that leader is slow, not gone). The leader had then read nothing of it, or it died before
 * answering, and a dead leader refuses the second connection.
 *
 * <p>Thread-safe.
 */
final class LeaderClient implements AutoCloseable {

    static final Duration IDLE_LIMIT = Duration.ofSeconds(5);
    static final int MAX_IDLE = 64;
    static final int MAX_HEAD = 8 * 1024;
    static final int MAX_BODY = 1024 * 1024;

    /** What the leader answered: its status, its headers by lower-case name, its body. */
    record Answer(int status, Map<String, String> headers, byte[] body) {
        Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
        }
    }

    /** A connection of ours to one leader, and since when it waits for a call (on the client's clock). */
    private record Connection(String authority, Socket socket, InputStream in, OutputStream out, long idleSince) {
        Connection idle(long now) {
            return new Connection(authority, socket, in, out, now);
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing what we no longer use: nothing to do
            }
        }
    }

    private final NanoClock clock;
    private final Duration connectTimeout;
    private final Duration answerTimeout;
    private final ReentrantLock lock = new ReentrantLock();
    /** Idle connections, the most recently used last. */
    private final ArrayDeque<Connection> idle = new ArrayDeque<>(); // guarded by lock
    private boolean closed; // guarded by lock

    /**
     * @param clock          what idle times are measured on
     * @param connectTimeout how long to wait for a new connection to the leader
     * @param answerTimeout  how long the leader may take to answer: a report waits for its state write
     */
    LeaderClient(NanoClock clock, Duration connectTimeout, Duration answerTimeout) {
        this.clock = clock;
        this.connectTimeout = connectTimeout;
        this.answerTimeout = answerTimeout;
    }

    /**
     * Sends one request to {@code leader} and reads its answer.
     *
     * @param target  the request target: raw path and query, as the client sent them
     * @param headers header lines to send beside {@code Host} and {@code Content-Length}
     * @throws java.net.SocketTimeoutException when the leader takes longer than the answer timeout
     * @throws IOException when the leader cannot be reached, or its answer is not one
     */
    Answer send(URI leader, String method, String target, List<Map.Entry<String, String>> headers, byte[] body)
            throws IOException {
        String authority = leader.getHost() + ":" + port(leader);
        byte[] request = request(method, target, authority, headers, body);
        Connection reused = take(authority);
        if (reused != null) {
            try {
                return exchange(reused, request);
            } catch (Unanswered e) {
                // closed while idle, before it read the request: once more, on a new connection
            }
        }
        try {
            return exchange(open(leader, authority), request);
        } catch (Unanswered e) {
            throw e.getCause();
        }
    }

    /** The connection failed before the first byte of an answer, and not by a timeout. */
    private static final class Unanswered extends Exception {
        Unanswered(IOException cause) {
            super(cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }

    /** Writes the request and reads the answer; keeps the connection if the answer allows it. */
    private Answer exchange(Connection c, byte[] request) throws IOException, Unanswered {
        boolean keep = false;
        try {
            AnswerReader reader = new AnswerReader(c.in());
            try {
                c.out().write(request);
                c.out().flush();
                if (!reader.fill()) {
                    throw new Unanswered(new EOFException("the leader closed the connection before answering"));
                }
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                throw new Unanswered(e);
            }
            Answer answer = reader.answer();
            keep = reader.drained() && !answer.header("Connection").map(v -> v.equalsIgnoreCase("close")).orElse(false);
            return answer;
        } finally {
            if (keep) {
                giveBack(c.idle(clock.nanoTime()));
            } else {
                c.close();
            }
        }
    }

    private static byte[] request(String method, String target, String authority,
            List<Map.Entry<String, String>> headers, byte[] body) {
        StringBuilder head = new StringBuilder(256).append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: ").append(authority).append("\r\n");
        for (Map.Entry<String, String> h : headers) {
            head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
        }
        head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    /** The most recently used idle connection to {@code authority} that may still be used; null if none. */
    private Connection take(String authority) {
        long now = clock.nanoTime();
        List<Connection> stale = new ArrayList<>();
        Connection found = null;
        lock.lock();
        try {
            for (Iterator<Connection> it = idle.descendingIterator(); it.hasNext() && found == null;) {
                Connection c = it.next();
                it.remove();
                if (!c.authority().equals(authority) || now - c.idleSince() >= IDLE_LIMIT.toNanos()) {
                    stale.add(c);
                } else {
                    found = c;
                }
            }
        } finally {
            lock.unlock();
        }
        stale.forEach(Connection::close);
        return found;
    }

    private void giveBack(Connection c) {
        Connection evicted = null;
        lock.lock();
        try {
            if (closed) {
                evicted = c;
            } else {
                if (idle.size() >= MAX_IDLE) {
                    evicted = idle.pollFirst();
                }
                idle.addLast(c);
            }
        } finally {
            lock.unlock();
        }
        if (evicted != null) {
            evicted.close();
        }
    }

    private Connection open(URI leader, String authority) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(leader.getHost(), port(leader)), (int) connectTimeout.toMillis());
            socket.setSoTimeout((int) answerTimeout.toMillis());
            return new Connection(authority, socket, socket.getInputStream(), socket.getOutputStream(),
                    clock.nanoTime());
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    private static int port(URI leader) {
        return leader.getPort() >= 0 ? leader.getPort() : 80;
    }

    /** Closes the idle connections; one in use is closed when its call ends. */
    @Override
    public void close() {
        List<Connection> all;
        lock.lock();
        try {
            closed = true;
            all = new ArrayList<>(idle);
            idle.clear();
        } finally {
            lock.unlock();
        }
        all.forEach(Connection::close);
    }
}
