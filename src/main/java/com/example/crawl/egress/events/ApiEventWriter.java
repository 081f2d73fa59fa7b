package com.example.crawl.egress.events;

import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventSeries;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * {@link EventWriter} over the fabric8 client. The series is set with a JSON Patch ({@code add
 * /series}), which needs no {@code resourceVersion} (this process is the Event's only writer) and
 * behaves the same on a real API server and on the fabric8 mock, where merge patches do not. The
 * patch is sent through a stub that carries only the Event's name and namespace: fabric8 reads a
 * resource named by {@code withName} before patching it, which would cost a GET per series
 * update and the {@code get} permission.
 * RBAC: {@code create} and {@code patch} on {@code events.k8s.io} {@code events}, nothing else.
 */
final class ApiEventWriter implements EventWriter {

    private final KubernetesClient client;

    ApiEventWriter(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public void create(Event event) {
        client.events().v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
    }

    @Override
    public void setSeries(String namespace, String name, EventSeries series) {
        String patch = "[{\"op\":\"add\",\"path\":\"/series\",\"value\":"
                + client.getKubernetesSerialization().asJson(series) + "}]";
        Event stub = new EventBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata().build();
        client.events().v1().events().inNamespace(namespace).resource(stub).patch(PatchContext.of(PatchType.JSON), patch);
    }
}
