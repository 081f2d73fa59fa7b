package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProxySpec.Mode;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/operations.md} says, field by field, which edits of a Proxy replace its instance (its
 * "What replaces an instance" table). Every field of {@link ProxySpec} is in the table, and each
 * row's verdict is what {@link SpecHash} does: a field marked "yes" changes the hash when edited,
 * one marked "no" leaves it alone.
 */
class SpecHashDocumentedTest {

    private static final Path PAGE = Path.of("docs/operations.md");
    private static final String SECTION = "### What replaces an instance";
    private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| (yes|no)\\b.*");
    private static final String CREDENTIALS = "2f1c3a4e-0000-4000-8000-000000000001";
    private static final String USER_DATA = "#cloud-config\n";

    private static final ProxySpec BASE = new ProxySpec(Mode.Managed, "in-cluster", 3128, Map.of("region", "eu"), 1,
            new CloudInit(USER_DATA, null),
            new GcpSpec("europe-west1-b", "e2-small", "debian-12", "default", null, false, List.of("proxy")),
            new KvmSpec("hv1", new KvmSpec.Image("https://img.test/a.qcow2", "ab"), 1, 512, 10, null, "default",
                    null),
            new KubernetesSpec("ubuntu/squid:6.6-24.04_beta", null),
            null, null);

    /** One edit of each field: the edited spec, and the cloud-init content it resolves to. */
    private static final Map<String, Edit> EDITS = new LinkedHashMap<>();

    record Edit(ProxySpec spec, String cloudInitContent) { }

    static {
        edit("mode", Mode.External);
        edit("provider", "gcp-eu");
        edit("port", 8080);
        edit("attributes", Map.of("region", "us", "tier", "dev"));
        edit("maxLeases", 7);
        EDITS.put("cloudInit", new Edit(with("cloudInit", new CloudInit("#cloud-config\npackages: [squid]\n", null)),
                "#cloud-config\npackages: [squid]\n"));
        edit("gcp", new GcpSpec("us-east1-b", "e2-small", "debian-12", "default", null, false, List.of("proxy")));
        edit("kvm", new KvmSpec("hv2", BASE.kvm().image(), 1, 512, 10, null, "default", null));
        edit("kubernetes", new KubernetesSpec("ubuntu/squid:6.13-25.04_beta", null));
        edit("endpoint", new Endpoint("proxy.example.com", 3128, null));
        edit("healthCheck", new HealthCheck("https://example.com/", List.of(200), 30, 10, 2, 5, true));
    }

    @Test
    void shouldListEverySpecFieldAndOnlyThose() throws IOException {
        List<String> fields = Arrays.stream(ProxySpec.class.getRecordComponents()).map(RecordComponent::getName).toList();
        assertEquals(new TreeSet<>(fields), new TreeSet<>(EDITS.keySet()), "this test edits every field");
        TreeSet<String> documented = new TreeSet<>();
        rows().keySet().stream().filter(k -> k.startsWith("spec.")).forEach(k -> documented.add(k.substring(5)));
        assertEquals(new TreeSet<>(fields), documented, PAGE + " " + SECTION + " lists every spec field");
    }

    @Test
    void shouldReplaceTheInstanceExactlyForTheFieldsThePageSaysDo() throws IOException {
        String before = SpecHash.of(BASE, USER_DATA, CREDENTIALS);
        List<String> wrong = new ArrayList<>();
        Map<String, Boolean> rows = rows();
        EDITS.forEach((field, edit) -> {
            boolean replaces = !before.equals(SpecHash.of(edit.spec(), edit.cloudInitContent(), CREDENTIALS));
            Boolean documented = rows.get("spec." + field);
            if (documented != null && documented != replaces) {
                wrong.add("spec." + field + ": documented " + (documented ? "yes" : "no") + ", SpecHash "
                        + (replaces ? "changes" : "does not change"));
            }
        });
        assertEquals(List.of(), wrong);
    }

    @Test
    void shouldReplaceTheInstanceWhenTheCredentialsSecretOrTheCloudInitSecretContentChanges() throws IOException {
        Map<String, Boolean> rows = rows();
        String before = SpecHash.of(BASE, USER_DATA, CREDENTIALS);
        assertTrue(rows.get("credentials Secret"), "documented as replacing");
        assertTrue(!before.equals(SpecHash.of(BASE, USER_DATA, "2f1c3a4e-0000-4000-8000-000000000002")));
        assertTrue(rows.get("cloud-init Secret content"), "documented as replacing");
        ProxySpec fromSecret = with("cloudInit", new CloudInit(null, new CloudInit.SecretKeyRef("boot", "user-data")));
        assertTrue(!SpecHash.of(fromSecret, USER_DATA, CREDENTIALS)
                .equals(SpecHash.of(fromSecret, USER_DATA + "runcmd: []\n", CREDENTIALS)));
    }

    /** The table's rows: first cell (a field or an input) to whether it replaces the instance. */
    private static Map<String, Boolean> rows() throws IOException {
        Map<String, Boolean> rows = new LinkedHashMap<>();
        boolean in = false;
        for (String line : Files.readAllLines(PAGE)) {
            if (line.startsWith("#")) {
                in = line.equals(SECTION);
            } else if (in) {
                Matcher m = ROW.matcher(line);
                if (m.matches()) {
                    rows.put(m.group(1), m.group(2).equals("yes"));
                }
            }
        }
        assertTrue(rows.size() > 10, "the table was read: " + rows);
        return rows;
    }

    private static void edit(String field, Object value) {
        EDITS.put(field, new Edit(with(field, value), USER_DATA));
    }

    /** {@link #BASE} with one component replaced, through the canonical constructor. */
    private static ProxySpec with(String field, Object value) {
        RecordComponent[] components = ProxySpec.class.getRecordComponents();
        Object[] args = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                args[i] = components[i].getName().equals(field) ? value : components[i].getAccessor().invoke(BASE);
            }
            return ProxySpec.class.getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
