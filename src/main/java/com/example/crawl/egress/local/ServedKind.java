package com.example.crawl.egress.local;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/**
 * One kind the embedded API serves to kubectl in one version, read from a CRD: where it lives,
 * its structural schema, its printer columns and its scale subresource. The group is empty for the core kinds.
 */
record ServedKind(String group, String version, String kind, String plural, boolean namespaced,
        StructuralSchema schema, Optional<PrinterColumns> columns, Optional<ScaleSubresource> scale) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Every served version of {@code crd}; printer columns only when {@code withColumns}. */
    static List<ServedKind> of(CustomResourceDefinition crd, boolean withColumns) {
        var spec = crd.getSpec();
        List<PrinterColumns> columns = withColumns ? PrinterColumns.of(crd) : List.of();
        List<ServedKind> out = new ArrayList<>();
        for (CustomResourceDefinitionVersion v : spec.getVersions()) {
            if (Boolean.TRUE.equals(v.getServed())) {
                StructuralSchema schema = new StructuralSchema(
                        JSON.readTree(Serialization.asJson(v.getSchema().getOpenAPIV3Schema())));
                out.add(new ServedKind(spec.getGroup(), v.getName(), spec.getNames().getKind(),
                        spec.getNames().getPlural(), "Namespaced".equals(spec.getScope()), schema,
                        columns.stream().filter(c -> c.version.equals(v.getName())).findFirst(),
                        ScaleSubresource.of(v.getSubresources() == null ? null : v.getSubresources().getScale(),
                                schema)));
            }
        }
        return out;
    }

    /** {@code crawl.example.com/v1alpha1}, or {@code v1} for the core group. */
    String groupVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** The path of the group version's API: {@code /apis/crawl.example.com/v1alpha1} or {@code /api/v1}. */
    String apiPath() {
        return group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
    }

    /** The key the dispatcher finds this kind by: {@code group/version/plural}. */
    String key() {
        return group + "/" + version + "/" + plural;
    }
}
