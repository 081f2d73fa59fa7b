package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.api.SpecHash;
import com.example.crawl.egress.api.SpecRules;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.ObjectChangedException;
import com.example.crawl.egress.runtime.Outcome;
import com.example.crawl.egress.runtime.Reconciler;
import com.example.crawl.egress.tracing.ActiveSpan;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.opentelemetry.api.trace.Tracer;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine that makes a Proxy's instance match its spec. One call of
 * {@link #reconcile} reads the cached object, takes at most a few provider and API steps, stages
 * the status and writes it once at the end if it changed, and returns what should happen next.
 *
 * <p>Dispatch: a deleting object goes through {@link DeleteFlow}; a spec that breaks the CRD's
 * rules is {@code InvalidSpec}; {@code External} records its endpoint; {@code Managed} runs
 * {@link #managed}: finalizer, unknown provider, the permanent-failure latch, cloud-init, the
 * credentials (generated into the Proxy's Secret before anything is created), then create, adopt,
 * replace (through {@link Replacement}) or observe by comparing the spec hash and the maker with
 * the annotations. The instance of a Proxy
 * provisioned and Running is read through {@link DriftReads}, which may answer from a listing
 * shared by all Proxies of its provider.
 *
 * <p>What a person should see as a Kubernetes Event (an instance created, replaced or deleted, a
 * permanent or quota failure, health turning bad) is noted during the pass and handed to the
 * {@link EventSink} after the pass's writes succeeded; see {@link ProxyEventReason}.
 *
 * <p>Spans, children of the worker's root span: {@code reconcile.managed},
 * {@code reconcile.replaceInstance} and {@code reconcile.delete}, around those steps; provider calls
 * and Kubernetes writes inside them make their own. {@code External} does no I/O and has none.
 *
 * <p>Thread-safe: holds no per-Proxy state of its own; the work queue guarantees that one key
 * is never reconciled by two workers at once.
 */
public final class ProxyReconciler implements Reconciler<ProxyKey> {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyReconciler.class);

    private final ProxyStore store;
    private final ProviderRegistry providers;
    private final HealthSource health;
    private final EventSink events;
    private final OperatorConfig.Reconcile intervals;
    private final Clock clock;
    private final SupersededVersions versions = new SupersededVersions();
    private final SecureRandom random = new SecureRandom();
    private final DeleteFlow deleteFlow;
    private final Replacement replacement;
    private final DriftReads driftReads;
    private final Tracer tracer;

    /** @param tracer makes the spans of the reconcile's steps */
    public ProxyReconciler(ProxyStore store, ProviderRegistry providers, HealthSource health, EventSink events,
            OperatorConfig.Reconcile intervals, Clock clock, Tracer tracer) {
        this.store = store;
        this.providers = providers;
        this.health = health;
        this.events = events;
        this.intervals = intervals;
        this.clock = clock;
        this.deleteFlow = new DeleteFlow(providers, store, intervals);
        this.replacement = new Replacement(providers, intervals, tracer);
        this.driftReads = new DriftReads(providers, intervals.driftPoll(), clock);
        this.tracer = tracer;
    }

    /**
     * Reconciles one Proxy. Blocks on provider and API calls; never throws for an expected
     * failure, which comes back as {@link Outcome.Failed} or {@link Outcome.Conflict}.
     */
    @Override
    public Outcome reconcile(ProxyKey key) {
        Optional<Proxy> cached = store.proxy(key);
        if (cached.isEmpty()) {
            versions.forget(key);
            return Outcome.DONE;
        }
        if (versions.isStale(key, cached.get().getMetadata().getResourceVersion())) {
            // The watch event of our own last write is on its way and will enqueue the key again;
            // the delay only covers a lost event.
            return Outcome.after(intervals.requeueNow());
        }
        Pass pass = new Pass(key, cached.get(), store, versions, clock.instant());
        try {
            Outcome outcome = dispatch(pass);
            pass.writeStatus();
            // Only now: an Event must not tell of a state that a lost write race never stored.
            pass.events().forEach(events::record);
            return outcome;
        } catch (ObjectChangedException e) {
            return new Outcome.Conflict(e.getMessage());
        } catch (KubernetesClientException e) {
            return new Outcome.Failed("Kubernetes API request failed: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("try") // the span only has to be current while the step runs
    private Outcome dispatch(Pass pass) throws ObjectChangedException {
        if (pass.deleting()) {
            try (ActiveSpan span = ActiveSpan.start(tracer.spanBuilder("reconcile.delete"))) {
                return deleteFlow.run(pass);
            }
        }
        if (pass.spec() == null) {
            pass.provisioned(false, Reason.InvalidSpec, "spec: required");
            return resync();
        }
        List<String> violations = SpecRules.violations(pass.spec());
        if (!violations.isEmpty()) {
            pass.provisioned(false, Reason.InvalidSpec, String.join("; ", violations));
            return resync();
        }
        return switch (pass.spec().mode()) {
            case External -> external(pass);
            case Managed -> {
                try (ActiveSpan span = ActiveSpan.start(tracer.spanBuilder("reconcile.managed"))) {
                    yield managed(pass);
                }
            }
        };
    }

    /** An existing endpoint: recorded and represented, never provisioned, no finalizer. */
    private Outcome external(Pass pass) {
        String host = pass.spec().endpoint().host();
        pass.stage(s -> s.withProviderID(null));
        pass.address(host);
        pass.provisioned(true, Reason.ExternalEndpoint, "external endpoint " + host + ":" + pass.spec().endpoint().port());
        applyHealth(pass, host);
        return resync();
    }

    private Outcome managed(Pass pass) throws ObjectChangedException {
        ProxySpec spec = pass.spec();
        Optional<Provider> provider = providers.find(spec.provider());
        if (provider.isEmpty()) {
            pass.provisioned(false, Reason.UnknownProvider, "provider \"" + spec.provider()
                    + "\" is not in the providers config (configured: " + configured() + ")");
            return resync();
        }
        if (latched(pass)) {
            return resync();
        }
        String cloudInit;
        try {
            cloudInit = CloudInitSource.resolve(pass.proxy(), store);
        } catch (CloudInitSource.Unavailable e) {
            pass.provisioned(false, Reason.CloudInitError, e.getMessage());
            return new Outcome.Failed(e.getMessage(), null);
        }
        CredentialsSource.Resolved credentials;
        try {
            credentials = CredentialsSource.resolve(pass.proxy(), store, random);
        } catch (CredentialsSource.Unavailable e) {
            pass.provisioned(false, Reason.CredentialsError, e.getMessage());
            return new Outcome.Failed(e.getMessage(), null);
        }
        Shape shape = new Shape(cloudInit, credentials, SpecHash.of(spec, cloudInit, credentials.version()));
        try {
            return converge(pass, provider.get(), shape);
        } catch (ProviderException e) {
            return providerFailure(pass, e);
        }
    }

    /**
     * What an instance is made from besides the spec, resolved once per pass.
     *
     * @param hash the spec hash over all of it
     */
    private record Shape(String cloudInit, CredentialsSource.Resolved credentials, String hash) {
        CreateRequest request(Proxy proxy) {
            return CreateRequest.of(proxy, cloudInit, credentials.credentials());
        }
    }

    /**
     * A permanent provider error at this generation stops all work until the spec changes (a new
     * generation), so a request that cannot succeed is not repeated.
     */
    private static boolean latched(Pass pass) {
        return pass.provisionedBecause(Reason.PermanentError)
                && pass.provisioned().map(Condition::observedGeneration).filter(g -> g == pass.generation()).isPresent();
    }

    @SuppressWarnings("try") // the span only has to be current while the step runs
    private Outcome converge(Pass pass, Provider provider, Shape shape)
            throws ProviderException, ObjectChangedException {
        String providerID = pass.status().providerID();
        String annotated = pass.annotation(Proxy.SPEC_HASH_ANNOTATION);
        String maker = pass.instanceProvider();
        if (providerID == null) {
            if (annotated != null && !annotated.equals(shape.hash())) {
                // A pass that claimed another shape may have made its instance and lost the status
                // write; that instance goes first, or it would run beside the new one (or be adopted).
                Optional<Outcome> waiting = replacement.deleteUnrecorded(pass, maker);
                if (waiting.isPresent()) {
                    return waiting.get();
                }
            }
            // create() puts finalizer, hash and maker in one write, before anything exists that would need them.
            return create(pass, provider, shape);
        }
        // An instance recorded without a hash (annotations removed by hand) is adopted as it is
        // once the spec's provider shows it has it, unless the recorded maker is another provider.
        boolean adopting = annotated == null;
        boolean replacing = !maker.equals(pass.spec().provider()) || !adopting && !annotated.equals(shape.hash());
        if (replacing || !adopting) {
            pass.claim(Map.of()); // puts back a finalizer taken off by hand: the instance is still ours
        }
        if (replacing) {
            return replacement.from(pass, maker, providerID);
        }
        Instance instance;
        try {
            instance = driftReads.read(pass.spec().provider(), provider, providerID, lastRunningAddress(pass));
        } catch (ProviderException.NotFound e) {
            LOG.atInfo().addKeyValue("providerID", providerID).log("Instance is gone; creating a new one");
            pass.stage(s -> s.withProviderID(null));
            pass.clearAddress();
            return create(pass, provider, shape);
        }
        if (adopting) {
            pass.claim(made(pass, shape));
        }
        return observe(pass, provider, instance);
    }

    /** The annotations recording what the instance is made from and which provider made it. */
    private static Map<String, String> made(Pass pass, Shape shape) {
        return Map.of(Proxy.SPEC_HASH_ANNOTATION, shape.hash(), Proxy.INSTANCE_PROVIDER_ANNOTATION, pass.spec().provider());
    }

    /** The address the instance was last seen Running at, while the Proxy is provisioned on it; else null. */
    private static String lastRunningAddress(Pass pass) {
        return pass.provisioned().filter(c -> c.isTrue() && c.hasReason(Reason.Created)).isPresent()
                ? pass.status().ip() : null;
    }

    /**
     * Creates the instance, or adopts it: the name is derived from the Proxy's UID, so a create
     * repeated after a crash (before the providerID reached status) returns the same instance.
     * The finalizer, hash and maker are claimed first, in one write that is skipped when nothing
     * changed.
     */
    private Outcome create(Pass pass, Provider provider, Shape shape)
            throws ProviderException, ObjectChangedException {
        // Recorded before the instance exists: a successor has its predecessor's name and
        // providerID, so a record written after the create could be lost and leave the old hash
        // vouching for an instance made from the new spec.
        pass.claim(made(pass, shape));
        Instance instance = provider.create(shape.request(pass.proxy()));
        LOG.atInfo().addKeyValue("provider", pass.spec().provider()).addKeyValue("providerID", instance.providerID())
                .log("Created instance");
        if (pass.provisionedBecause(Reason.Replacing)) {
            pass.event(ProxyEventReason.InstanceReplaced, "Created instance " + instance.providerID()
                    + " to replace the deleted one (provider " + pass.spec().provider() + ")");
        } else {
            pass.event(ProxyEventReason.InstanceCreated, "Created instance " + instance.providerID()
                    + " (provider " + pass.spec().provider() + ")");
        }
        pass.stage(s -> s.withProviderID(instance.providerID()));
        return observe(pass, provider, instance);
    }

    private Outcome observe(Pass pass, Provider provider, Instance instance) throws ProviderException {
        String id = instance.providerID();
        return switch (instance.state()) {
            case Running -> instance.ip() == null
                    ? starting(pass, "instance " + id + " is running but has no address yet")
                    : running(pass, instance);
            case Provisioning -> {
                pass.clearAddress();
                yield starting(pass, "instance " + id + " is starting");
            }
            case Stopped, Terminated -> {
                // Instances are cattle: one that stopped is deleted, and a new one replaces it.
                provider.delete(id);
                if (!pass.provisionedBecause(Reason.Replacing)) {
                    LOG.atInfo().addKeyValue("providerID", id).addKeyValue("state", instance.state())
                            .log("Instance stopped; deleting it to create a new one");
                    pass.event(ProxyEventReason.InstanceStopped, "Instance " + id + " is " + instance.state()
                            + "; deleting it to create a new one");
                }
                pass.clearAddress();
                pass.provisioned(false, Reason.Replacing, "instance " + id + " is " + instance.state()
                        + "; deleting it to create a new one");
                yield Outcome.after(intervals.deletionPoll());
            }
        };
    }

    private Outcome running(Pass pass, Instance instance) {
        pass.address(instance.ip());
        pass.provisioned(true, Reason.Created, "instance " + instance.providerID() + " is running at " + instance.ip());
        applyHealth(pass, instance.ip());
        return Outcome.after(intervals.driftPoll());
    }

    private Outcome starting(Pass pass, String message) {
        pass.provisioned(false, Reason.Provisioning, message);
        return Outcome.after(intervals.provisioningPoll());
    }

    private Outcome providerFailure(Pass pass, ProviderException e) {
        return switch (e) {
            case ProviderException.QuotaExceeded q -> {
                pass.provisioned(false, Reason.QuotaExceeded, q.getMessage());
                pass.event(ProxyEventReason.QuotaExceeded, "Provider " + pass.spec().provider()
                        + " is out of quota; retrying later: " + q.getMessage());
                yield Outcome.after(intervals.quotaRetry());
            }
            case ProviderException.Permanent p -> {
                LOG.atWarn().addKeyValue("provider", pass.spec().provider()).addKeyValue("error", p.getMessage())
                        .log("Provider refused the request for good; Failed until the spec changes");
                pass.provisioned(false, Reason.PermanentError, p.getMessage());
                pass.event(ProxyEventReason.PermanentError, "Provider " + pass.spec().provider()
                        + " refused for good; Failed until the spec changes: " + p.getMessage());
                yield resync();
            }
            case ProviderException.Transient t -> new Outcome.Failed(t.getMessage(), t);
            // get() answers NotFound where it matters; anywhere else it is a surprise worth a retry.
            case ProviderException.NotFound n -> new Outcome.Failed(n.getMessage(), n);
        };
    }

    /**
     * Stages the health engine's verdict, if it has one about this address, with the egress
     * address it learned (none learned: status keeps its own). A verdict that turns the proxy
     * unhealthy (from healthy, or as the first one) is an Event; turning healthy is not, so that a
     * flapping proxy is one series of {@code Unhealthy} (see docs/decisions.md).
     */
    private void applyHealth(Pass pass, String address) {
        Optional<HealthVerdict> verdict = health.verdict(pass.key()).filter(v -> v.address().equals(address));
        if (verdict.isEmpty()) {
            return;
        }
        HealthVerdict v = verdict.get();
        // Unknown (NotProvisioned) is no verdict, as no condition is: an unhealthy one after it is told.
        if (!v.healthy() && pass.observed(Condition.HEALTHY).filter(c -> c.isTrue() || c.isFalse())
                .map(Condition::isTrue).orElse(true)) {
            pass.event(ProxyEventReason.Unhealthy, "Health checks through the proxy failed: " + v.message());
        }
        pass.stage(s -> s.withHealth(v.latencyMillis(), Conditions.timestamp(v.checkedAt()))
                .withCondition(Condition.of(Condition.HEALTHY, v.healthy(), pass.generation(),
                        v.healthy() ? Reason.ProbeSucceeded : Reason.ProbeFailed, v.message(), v.checkedAt())));
        if (v.egressIP() != null) {
            pass.stage(s -> s.withEgressIP(v.egressIP()));
        }
    }

    /**
     * The next look at a Proxy that needs nothing now (External, invalid, unknown provider,
     * latched): one {@code --drift-poll} later, like a Ready one, so that a status someone else
     * overwrote is written again and nothing waits for an event that may never come.
     */
    private Outcome resync() {
        return Outcome.after(intervals.driftPoll());
    }

    private String configured() {
        List<String> names = providers.names();
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /* test */ SupersededVersions versions() {
        return versions;
    }
}
