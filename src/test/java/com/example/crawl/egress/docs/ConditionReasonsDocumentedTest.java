package com.example.crawl.egress.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.PoolReason;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.health.FailureReason;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/troubleshooting.md} explains every reason the operator can write, and only those:
 * the Proxy condition reasons ({@link Reason}), the ProxyPool ones ({@link PoolReason}), the probe failure reasons of the {@code Healthy}
 * message ({@link FailureReason}), and the {@code ProviderHealth} target reasons, read by
 * reflection from the classes that set them (their non-private {@code String} constants that
 * match the CRDs' reason pattern).
 */
class ConditionReasonsDocumentedTest {

    private static final Path PAGE = Path.of("docs/troubleshooting.md");
    /** The first cell of a reason table row: {@code | `Reason` |}. */
    private static final Pattern ROW = Pattern.compile("^\\| `([A-Za-z][A-Za-z0-9_,:]*)` \\|.*");
    /** The reason pattern of both CRDs (metav1.Condition's). */
    private static final Pattern REASON = Pattern.compile("[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?");
    /** The classes whose constants are ProviderHealth target reasons. */
    private static final List<String> TARGET_REASON_CLASSES = List.of(
            "com.example.crawl.egress.providerhealth.MonitoredProvider",
            "com.example.crawl.egress.provider.kubernetes.ApiFailure",
            "com.example.crawl.egress.provider.gcp.ComputeCheck",
            "com.example.crawl.egress.provider.kvm.KvmCheck",
            "com.example.crawl.egress.provider.local.LocalProvider");

    @Test
    void shouldExplainEveryReasonTheCodeSetsAndNoOther() throws IOException, ReflectiveOperationException {
        Set<String> inCode = new TreeSet<>();
        Arrays.stream(Reason.values()).map(Enum::name).forEach(inCode::add);
        Arrays.stream(FailureReason.values()).map(Enum::name).forEach(inCode::add);
        Arrays.stream(PoolReason.values()).map(Enum::name).forEach(inCode::add);
        for (String name : TARGET_REASON_CLASSES) {
            inCode.addAll(reasonConstants(Class.forName(name)));
        }
        Set<String> documented = documented();

        Set<String> missing = new TreeSet<>(inCode);
        missing.removeAll(documented);
        Set<String> unknown = new TreeSet<>(documented);
        unknown.removeAll(inCode);
        assertEquals(Set.of(), missing, "reasons the code sets but " + PAGE + " does not explain");
        assertEquals(Set.of(), unknown, "reasons " + PAGE + " explains but no code sets");
    }

    @Test
    void shouldReadTheProviderReasonsFromTheirClasses() throws ReflectiveOperationException {
        assertTrue(reasonConstants(Class.forName(TARGET_REASON_CLASSES.get(4))).containsAll(
                Set.of("SquidMissing", "StateDirUnwritable")));
        assertTrue(reasonConstants(Class.forName(TARGET_REASON_CLASSES.get(1))).contains("Forbidden"));
        assertTrue(reasonConstants(Class.forName(TARGET_REASON_CLASSES.get(3))).containsAll(
                Set.of("SSHHandshakeFailed", "PoolInactive")));
        assertTrue(reasonConstants(Class.forName(TARGET_REASON_CLASSES.get(2))).containsAll(
                Set.of("APIDisabled", "ProjectNotFound", "QuotaExceeded")));
    }

    private static Set<String> reasonConstants(Class<?> type) throws IllegalAccessException {
        Set<String> out = new TreeSet<>();
        for (Field f : type.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isStatic(m) && Modifier.isFinal(m) && !Modifier.isPrivate(m) && f.getType() == String.class) {
                f.setAccessible(true);
                String value = (String) f.get(null);
                if (REASON.matcher(value).matches()) {
                    out.add(value);
                }
            }
        }
        return out;
    }

    private static Set<String> documented() throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<String> lines = Files.lines(PAGE)) {
            lines.map(ROW::matcher).filter(Matcher::matches).forEach(m -> out.add(m.group(1)));
        }
        assertTrue(out.size() >= 20, "the page was read: " + out);
        return out;
    }
}
