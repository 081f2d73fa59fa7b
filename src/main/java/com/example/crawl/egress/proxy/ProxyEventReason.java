package com.example.crawl.egress.proxy;

import com.example.crawl.egress.runtime.EventReason;

/**
 * Why the Proxy controller records an Event. The constant's name is the Event's {@code reason};
 * docs/operations.md says when each is emitted.
 */
public enum ProxyEventReason implements EventReason {
    /** A provider created an instance for a Proxy that had none (first create, or it vanished). */
    InstanceCreated(Type.Normal, "Create"),
    /** The spec, cloud-init or credentials changed: the old instance is deleted before a new one. */
    ReplacingInstance(Type.Normal, "Replace"),
    /** The instance stopped or was terminated without the operator: it is deleted and replaced. */
    InstanceStopped(Type.Warning, "Replace"),
    /** The successor of an instance the operator deleted to replace it was created. */
    InstanceReplaced(Type.Normal, "Replace"),
    /** The Proxy is being deleted and its instance is gone. */
    InstanceDeleted(Type.Normal, "Delete"),
    /** The Proxy was deleted with the skip-cleanup annotation: its instance was left running. */
    InstanceAbandoned(Type.Warning, "Delete"),
    /** The provider refused for good; the Proxy is Failed until its spec changes. */
    PermanentError(Type.Warning, "Provision"),
    /** The provider is out of quota; the create is retried slowly. */
    QuotaExceeded(Type.Warning, "Provision"),
    /** The health verdict turned unhealthy (from healthy, or as the first verdict). */
    Unhealthy(Type.Warning, "Probe");

    private final Type type;
    private final String action;

    ProxyEventReason(Type type, String action) {
        this.type = type;
        this.action = action;
    }

    @Override
    public Type type() {
        return type;
    }

    @Override
    public String action() {
        return action;
    }
}
