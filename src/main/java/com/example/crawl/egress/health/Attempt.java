package com.example.crawl.egress.health;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One probe over one fresh connection: resolve the proxy, connect, then either {@code CONNECT}
 * and TLS inside the tunnel and an origin-form {@code GET}, or an absolute-URI {@code GET}; then
 * the status line ({@link #run}), or for the egress echo the body too ({@link #fetch}).
 *
 * <p>Used by one probing thread, except {@link #expire}, which the watchdog calls at the deadline
 * to close the connection from outside. {@link #step} says how far the probe got, so that an
 * exception can be named after the step it ended.
 */
final class Attempt {

    /** How far a probe got, in order. */
    enum Step { RESOLVE, CONNECT, TUNNEL, HANDSHAKE, REQUEST }

    private static final String USER_AGENT = "egress-proxies-operator";
    /** Dotted-quad IPv4, or anything with a colon (IPv6): {@link InetAddress#getByName} never looks these up. */
    private static final Pattern IP_LITERAL = Pattern.compile("(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}|.*:.*");

    private final ProbeTarget target;
    private final URI url;
    private final Deadline deadline;
    private final SSLSocketFactory tls;
    private volatile Socket socket;
    private volatile boolean expired;
    private Step step = Step.RESOLVE; // written and read by the probing thread only

    /**
     * @param tls the factory for the TLS session inside the tunnel; host names are verified
     *            unless the target skips verification (then {@code tls} must trust any certificate)
     */
    Attempt(ProbeTarget target, Deadline deadline, SSLSocketFactory tls) {
        this.target = target;
        this.url = URI.create(target.url().toASCIIString()); // requests are ASCII on the wire
        this.deadline = deadline;
        this.tls = tls;
    }

    /**
     * Runs the probe up to the target's status line.
     *
     * @return the target's status line (through the tunnel for https, from the proxy for http)
     * @throws ProbeException a refusal or unreadable answer, detail only
     * @throws IOException    any network failure; {@link #step} tells where
     */
    StatusLine run() throws IOException, ProbeException {
        return request().status();
    }

    /**
     * Fetches the target's body, as the egress echo does: the answer must be a 200 whose body
     * holds at most {@code max} bytes (see {@link HeadReader#body}).
     *
     * @throws ProbeException a refusal, another status, or an unreadable or longer body
     * @throws IOException    any network failure; {@link #step} tells where
     */
    byte[] fetch(int max) throws IOException, ProbeException {
        Answer answer = request();
        if (answer.status().code() == 407) {
            throw new ProbeException(FailureReason.ProxyAuthRequired, "proxy wants credentials (" + answer.status() + ")");
        }
        if (answer.status().code() != 200) {
            throw new ProbeException(FailureReason.UnexpectedStatus, "answered " + answer.status() + ", expected 200");
        }
        return answer.reader().body(max);
    }

    /** A final status line, and the reader positioned just after it. */
    private record Answer(StatusLine status, HeadReader reader) { }

    private Answer request() throws IOException, ProbeException {
        InetAddress proxy = resolve();
        step = Step.CONNECT;
        Socket raw = connect(proxy);
        if (!target.tunnelled()) {
            step = Step.REQUEST;
            return exchange(raw, "GET " + absoluteUri() + " HTTP/1.1", proxyAuthorization());
        }
        step = Step.TUNNEL;
        tunnel(raw);
        step = Step.HANDSHAKE;
        SSLSocket secure = handshake(raw);
        step = Step.REQUEST;
        return exchange(secure, "GET " + originForm() + " HTTP/1.1", ""); // the proxy is only a tunnel now
    }

    Step step() {
        return step;
    }

    /** Whether the watchdog fired or the deadline has passed. */
    boolean expired() {
        return expired || deadline.passed();
    }

    /** Closes the connection at the deadline; safe to call from any thread, more than once. */
    void expire() {
        expired = true;
        close();
    }

    /** Closes the TCP connection without a TLS close_notify: the probe has what it needs. */
    void close() {
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
    }

    /** What the probe was doing in {@code step}, for the start of a failure message. */
    String describe(Step at) {
        return switch (at) {
            case RESOLVE -> "resolving proxy host " + target.proxyHost();
            case CONNECT -> "connecting to proxy " + target.proxyHost() + ":" + target.proxyPort();
            case TUNNEL -> "CONNECT to " + url.getHost() + ":" + target.targetPort();
            case HANDSHAKE -> "TLS handshake with " + url.getHost() + ":" + target.targetPort();
            case REQUEST -> "GET " + target.url();
        };
    }

    /**
     * Resolves the proxy's host. A name is looked up on a virtual thread, so that a slow resolver
     * cannot hold the probe past its deadline (a lookup has no timeout of its own); an abandoned
     * lookup finishes by itself. An IP literal, the common case, needs no lookup.
     */
    private InetAddress resolve() throws IOException {
        String host = target.proxyHost();
        if (IP_LITERAL.matcher(host).matches()) {
            return InetAddress.getByName(host);
        }
        FutureTask<InetAddress> lookup = new FutureTask<>(() -> InetAddress.getByName(host));
        Thread.ofVirtual().name("probe-resolve").start(lookup);
        try {
            return lookup.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new UnknownHostException(e.getCause().toString());
        } catch (TimeoutException e) {
            throw new SocketTimeoutException("no address before the deadline");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        }
    }

    private Socket connect(InetAddress proxy) throws IOException {
        Socket s = new Socket();
        socket = s;
        if (expired) { // the watchdog fired before there was a socket to close
            throw new SocketTimeoutException("deadline passed");
        }
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(proxy, target.proxyPort()), deadline.remainingMillis());
        return s;
    }

    private void tunnel(Socket raw) throws IOException, ProbeException {
        String authority = url.getHost() + ":" + target.targetPort();
        send(raw, "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\nUser-Agent: " + USER_AGENT
                + "\r\n" + proxyAuthorization() + "\r\n");
        HeadReader reader = new HeadReader(raw, deadline);
        StatusLine answer = reader.statusLine();
        if (answer.code() == 407) {
            throw new ProbeException(FailureReason.ProxyAuthRequired, "proxy wants credentials (" + answer + ")");
        }
        if (!answer.success()) {
            throw new ProbeException(FailureReason.ProxyRefused, "proxy answered " + answer);
        }
        reader.skipHeaders();
        if (reader.hasBuffered()) { // a 2xx to CONNECT has no body, and TLS servers speak second
            throw new ProbeException(FailureReason.MalformedResponse, "proxy sent data after its answer, before TLS");
        }
    }

    private SSLSocket handshake(Socket raw) throws IOException {
        String host = bare(url.getHost());
        // Created with the host name, the JDK sends SNI for names (not for IP literals).
        SSLSocket secure = (SSLSocket) tls.createSocket(raw, host, target.targetPort(), true);
        if (!target.insecureSkipVerify()) {
            SSLParameters params = secure.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            secure.setSSLParameters(params);
        }
        raw.setSoTimeout(deadline.remainingMillis());
        secure.startHandshake();
        return secure;
    }

    /** @param extraHeaders whole header lines, each ending in CRLF, or empty */
    private Answer exchange(Socket s, String requestLine, String extraHeaders) throws IOException, ProbeException {
        send(s, requestLine + "\r\nHost: " + hostHeader() + "\r\nUser-Agent: " + USER_AGENT
                + "\r\nConnection: close\r\n" + extraHeaders + "\r\n");
        HeadReader reader = new HeadReader(s, deadline);
        StatusLine answer = reader.statusLine();
        while (answer.interim()) { // e.g. 103 Early Hints before the real answer
            reader.skipHeaders();
            answer = reader.statusLine();
        }
        return new Answer(answer, reader);
    }

    /** The {@code Proxy-Authorization} header line, or empty when the proxy demands no credentials. */
    private String proxyAuthorization() {
        return target.credentials() == null ? ""
                : "Proxy-Authorization: " + target.credentials().basicAuthorization() + "\r\n";
    }

    private static void send(Socket s, String request) throws IOException {
        s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
    }

    private String absoluteUri() {
        return "http://" + hostHeader() + originForm();
    }

    private String originForm() {
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        return url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
    }

    private String hostHeader() {
        int defaultPort = target.tunnelled() ? 443 : 80;
        return target.targetPort() == defaultPort ? url.getHost() : url.getHost() + ":" + target.targetPort();
    }

    /** An IPv6 literal without its URL brackets. */
    private static String bare(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}
