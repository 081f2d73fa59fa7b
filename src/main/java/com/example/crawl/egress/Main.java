package com.example.crawl.egress;

import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.log.LogSetup;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The process: flags, logging and the JDK HTTP server's limits, then {@link Operator}'s
 * composition, then waiting for the end. Whatever ends the run (SIGTERM, a lost lease, bad input,
 * a failed start, a bug), the shutdown runs.
 *
 * <p>Exit codes: 0 after {@code --help} or a clean shutdown, 2 for bad configuration (one line
 * on stderr naming the problem), 1 when the operator cannot run.
 */
public final class Main {

    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    private Main() {
    }

    public static void main(String[] args) {
        Shutdown shutdown = new Shutdown();
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown::stop, "shutdown"));
        System.exit(run(Arrays.asList(args), System.getenv(), System.out, System.err, shutdown));
    }

    /** Runs the operator until {@code shutdown} is asked to stop; returns the process exit code. */
    static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err, Shutdown shutdown) {
        return run(args, env, out, err, shutdown, Backend::open);
    }

    /** As {@link #run(List, Map, PrintStream, PrintStream, Shutdown)}, on the backend {@code opener} opens. */
    static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err, Shutdown shutdown,
            Backend.Opener opener) {
        if (args.contains("--help") || args.contains("-h")) {
            out.print(OperatorConfig.help());
            return EXIT_OK;
        }
        try {
            OperatorConfig config = OperatorConfig.parse(args, env);
            LogSetup.configure(config.logging().format(), config.logging().level(), out, Clock.systemUTC());
            JdkHttpServerLimits.apply(config.discovery()); // JVM-wide, read once: before any HttpServer exists
            Operator.start(config, opener, out, shutdown);
            shutdown.await();
        } catch (ConfigException e) {
            err.println(OperatorConfig.PROGRAM + ": " + e.getMessage());
            shutdown.fail(EXIT_USAGE);
        } catch (StartException | ProxyInformers.NotSynced e) {
            LoggerFactory.getLogger(Main.class).atError().addKeyValue("error", e.getMessage()).log("Operator failed to start");
            err.println(OperatorConfig.PROGRAM + ": " + e.getMessage());
            shutdown.fail(EXIT_FAILED);
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(Main.class).atError().setCause(e).log("Operator failed");
            shutdown.fail(EXIT_FAILED);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            shutdown.stop();
        }
        return shutdown.exitCode();
    }
}
