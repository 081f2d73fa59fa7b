package com.example.crawl.egress.health;

import com.example.crawl.egress.health.Attempt.Step;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Probes proxies over raw sockets: a fresh TCP connection per probe; for an https URL a
 * {@code CONNECT} to the target, TLS inside the tunnel (SNI, certificate and host-name checks
 * unless the target skips verification) and an origin-form {@code GET}; for an http URL an
 * absolute-URI {@code GET} to the proxy. Success is the target's status line with an expected
 * code; a 407 is never success.
 *
 * <p>Thread-safe: one instance serves every probe. {@link #probe} blocks the calling thread (meant
 * to be a virtual thread) until the status line or the target's timeout, plus a few milliseconds:
 * each read waits at most for what is left of the timeout, and one shared watchdog thread closes
 * the connection at the deadline, which also ends a stalled TLS handshake or an answer that
 * trickles in a byte at a time. It never throws for what the network, the proxy or the target
 * does, and does not log. Only the status line is read; the connection is then closed.
 *
 * <p>The same path fetches the egress echo ({@link #fetch}): a 200 whose body, at most {@value
 * EchoBody#MAX_BYTES} bytes, names an IP address ({@link EchoBody}). The echo is always verified
 * against the trust store: its URL is the operator's flag, not a Proxy's spec.
 *
 * <p>An interrupted probe ends at once as a timeout and keeps the thread's interrupt status.
 * {@link #close} stops the watchdog and is idempotent; probing afterwards throws
 * {@link java.util.concurrent.RejectedExecutionException}.
 */
public final class ConnectProber implements Prober, EgressEcho, AutoCloseable {

    private final SSLSocketFactory verifying;
    private final SSLSocketFactory trustingAll;
    private final ScheduledThreadPoolExecutor watchdog;

    /** A prober that verifies targets against the JDK's default trust store. */
    public ConnectProber() {
        this(defaultContext());
    }

    /**
     * A prober that verifies targets with {@code verifying}'s trust managers (tests pass a context
     * that trusts a generated certificate). Targets with {@code insecureSkipVerify} are not
     * verified at all.
     */
    public ConnectProber(SSLContext verifying) {
        this.verifying = verifying.getSocketFactory();
        this.trustingAll = trustAllContext().getSocketFactory();
        // One platform thread for all probes: it only closes sockets, and a virtual thread
        // blocked in a read cannot time itself out of a TLS handshake or a slow drip.
        this.watchdog = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("connect-prober-watchdog").factory());
        watchdog.setRemoveOnCancelPolicy(true); // most probes finish long before their deadline
    }

    @Override
    public ProbeResult probe(ProbeTarget target) {
        Deadline deadline = Deadline.after(target.timeout());
        Attempt attempt = new Attempt(target, deadline, target.insecureSkipVerify() ? trustingAll : verifying);
        ScheduledFuture<?> alarm = arm(attempt, deadline);
        try {
            StatusLine answer = attempt.run();
            return judge(target, attempt, answer, deadline.elapsed());
        } catch (ProbeException e) {
            return failure(attempt, e.reason(), e.getMessage(), deadline);
        } catch (IOException e) {
            return classify(target, attempt, e, deadline);
        } finally {
            alarm.cancel(false);
            attempt.close();
        }
    }

    /** Fetches the egress echo at {@code target}'s URL through its proxy; never throws for what the network does. */
    @Override
    public EchoResult fetch(ProbeTarget target) {
        Deadline deadline = Deadline.after(target.timeout());
        Attempt attempt = new Attempt(target, deadline, verifying);
        ScheduledFuture<?> alarm = arm(attempt, deadline);
        try {
            return EchoBody.read(attempt.fetch(EchoBody.MAX_BYTES));
        } catch (ProbeException e) {
            return new EchoResult.Failed(attempt.describe(attempt.step()) + ": " + e.getMessage());
        } catch (IOException e) {
            String detail = attempt.expired() || e instanceof SocketTimeoutException || Thread.currentThread().isInterrupted()
                    ? "no complete answer within " + human(target.timeout()) : detail(e);
            return new EchoResult.Failed(attempt.describe(attempt.step()) + ": " + detail);
        } finally {
            alarm.cancel(false);
            attempt.close();
        }
    }

    /** Has the watchdog close the attempt's connection at its deadline. */
    private ScheduledFuture<?> arm(Attempt attempt, Deadline deadline) {
        return watchdog.schedule(attempt::expire, deadline.remainingNanos(), TimeUnit.NANOSECONDS);
    }

    /** Stops the watchdog thread. Idempotent. */
    @Override
    public void close() {
        watchdog.shutdownNow();
    }

    private static ProbeResult judge(ProbeTarget target, Attempt attempt, StatusLine answer, Duration elapsed) {
        String who = target.tunnelled() ? "target" : "proxy";
        if (answer.code() == 407) {
            return new ProbeResult.Failure(FailureReason.ProxyAuthRequired,
                    attempt.describe(Step.REQUEST) + ": " + who + " wants credentials (" + answer + ")", elapsed);
        }
        if (!target.expectedStatus().contains(answer.code())) {
            return new ProbeResult.Failure(FailureReason.UnexpectedStatus, attempt.describe(Step.REQUEST)
                    + ": answered " + answer + ", expected " + new TreeSet<>(target.expectedStatus()), elapsed);
        }
        return new ProbeResult.Success(elapsed, answer.code());
    }

    /**
     * Names an I/O failure by the step it ended. Past the deadline, whatever surfaced (a closed
     * socket, a read timeout) is a timeout; an interrupted probe ends as a timeout too.
     */
    private static ProbeResult classify(ProbeTarget target, Attempt attempt, IOException e, Deadline deadline) {
        Step step = attempt.step();
        boolean reaching = step == Step.RESOLVE || step == Step.CONNECT;
        if (Thread.currentThread().isInterrupted()) {
            return failure(attempt, reaching ? FailureReason.ConnectTimeout : FailureReason.Timeout, "interrupted", deadline);
        }
        if (attempt.expired() || e instanceof SocketTimeoutException) {
            String detail = switch (step) {
                case RESOLVE -> "no address";
                case CONNECT -> "no connection";
                case TUNNEL, HANDSHAKE, REQUEST -> "no complete answer";
            };
            return failure(attempt, reaching ? FailureReason.ConnectTimeout : FailureReason.Timeout,
                    detail + " within " + human(target.timeout()), deadline);
        }
        FailureReason reason = switch (step) {
            case RESOLVE -> FailureReason.UnknownHost;
            case CONNECT -> FailureReason.ConnectRefused;
            case HANDSHAKE -> FailureReason.TlsFailed;
            case TUNNEL, REQUEST -> e instanceof SSLException ? FailureReason.TlsFailed : FailureReason.MalformedResponse;
        };
        return failure(attempt, reason, detail(e), deadline);
    }

    private static ProbeResult.Failure failure(Attempt attempt, FailureReason reason, String detail, Deadline deadline) {
        return new ProbeResult.Failure(reason, attempt.describe(attempt.step()) + ": " + detail, deadline.elapsed());
    }

    /** What the JDK said, in words a person can act on. */
    private static String detail(IOException e) {
        if (e instanceof UnknownHostException) {
            return "unknown host";
        }
        if (e instanceof ConnectException || e instanceof NoRouteToHostException) {
            return e.getMessage() == null ? "connection refused" : e.getMessage().toLowerCase(Locale.ROOT);
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return message.length() > 300 ? message.substring(0, 300) + "…" : message;
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    private static SSLContext defaultContext() {
        try {
            return SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no default TLS context", e);
        }
    }

    private static SSLContext trustAllContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new TrustAll()}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot build a TLS context", e);
        }
    }

    /**
     * Accepts any certificate, for {@code insecureSkipVerify}. Extended, so the JDK does not wrap
     * it in checks of its own.
     */
    private static final class TrustAll extends X509ExtendedTrustManager {
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType) { }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType) { }
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) { }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) { }
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) { }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) { }
        @Override public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
