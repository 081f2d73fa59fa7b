package com.example.crawl.egress.provider.local;

import com.example.crawl.egress.provider.local.InstanceDir.Facts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One instance's Squid as a process: started in the instance's directory, recognised by its
 * command line, asked whether it accepts connections, and killed only when provably ours.
 * Stateless; the pid lives in the instance's facts.
 */
final class SquidProcess {

    private static final Logger LOG = LoggerFactory.getLogger(LocalProvider.class); // the provider's lines, as before
    private static final Duration ACCEPT_CHECK = Duration.ofMillis(200);
    /**
     * How long {@code create} waits for a Squid it started to accept connections. Squid listens
     * within a few hundred milliseconds; answering Running from the create itself saves the
     * reconciler a provisioning poll ({@code --provisioning-poll}, 10 s by default).
     */
    private static final Duration START_WAIT = Duration.ofSeconds(3);
    private static final Duration START_POLL = Duration.ofMillis(10);
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private SquidProcess() {
    }

    /**
     * Starts {@code squid} in the instance's {@code run/} directory, the working directory its
     * relative paths (password file, logs) resolve from, and records its pid.
     */
    static Facts start(Path squid, InstanceDir dir, Facts facts) throws IOException {
        Process p = new ProcessBuilder(squid.toString(), "-N", "-f", dir.config().toString())
                .directory(dir.run().toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.output().toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        Facts running = facts.withPid(p.pid());
        dir.write(running);
        return running;
    }

    /**
     * Waits, up to {@link #START_WAIT}, until the Squid just started accepts connections or dies.
     * Squid tells nobody when it listens, so this polls its address.
     */
    static void awaitAccepting(Facts f) {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        Optional<ProcessHandle> process = ProcessHandle.of(f.pid());
        while (process.filter(ProcessHandle::isAlive).isPresent() && !accepting(f)
                && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(START_POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * The recorded process, if it runs and is provably this instance's Squid: {@code /proc} shows a
     * {@code squid} binary started with {@code -f} and this instance's configuration file (a path
     * inside the operator's own 0700 state directory). A recycled pid, or a process whose command
     * line cannot be read, is not.
     */
    static Optional<ProcessHandle> of(InstanceDir dir, Facts f) {
        if (f.pid() <= 0) {
            return Optional.empty();
        }
        return ProcessHandle.of(f.pid()).filter(ProcessHandle::isAlive).filter(h -> runs(h.info(), dir.config()));
    }

    static boolean accepting(Facts f) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(f.address(), f.port()), (int) ACCEPT_CHECK.toMillis());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Kills the instance's Squid; a live process that is not provably it is reported, never signalled. */
    static void stop(InstanceDir dir, Facts f) {
        Optional<ProcessHandle> ours = of(dir, f);
        if (ours.isEmpty()) {
            if (f.pid() > 0 && ProcessHandle.of(f.pid()).filter(ProcessHandle::isAlive).isPresent()) {
                LOG.atWarn().addKeyValue("instance", f.name()).addKeyValue("pid", f.pid())
                        .log("Recorded process is not this instance's Squid; leaving it alone");
            }
            return;
        }
        ProcessHandle h = ours.get();
        h.destroyForcibly(); // no cache, nothing to flush: a graceful stop would only cost seconds
        try {
            h.onExit().get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // reported by the next get as still alive; delete is retried
        }
    }

    private static boolean runs(ProcessHandle.Info info, Path config) {
        Optional<String> command = info.command();
        Optional<String[]> arguments = info.arguments();
        if (command.isEmpty() || arguments.isEmpty() || !command.get().endsWith("squid")) {
            return false;
        }
        List<String> args = List.of(arguments.get());
        int f = args.indexOf("-f");
        return f >= 0 && f + 1 < args.size() && args.get(f + 1).equals(config.toString());
    }
}
