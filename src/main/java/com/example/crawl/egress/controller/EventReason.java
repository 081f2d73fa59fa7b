package com.example.crawl.egress.controller;

/**
 * Why the control loop records an Event about a Proxy. The constant's name is the Event's
 * {@code reason} (CamelCase, as the API expects); each reason has exactly one type and one action,
 * so every occurrence of a reason about one Proxy belongs to one series. docs/operations.md says
 * when each is emitted.
 */
public enum EventReason {
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
    Unhealthy(Type.Warning, "Probe"),
    /** A pool created members: the note counts them and names the first few. */
    MembersCreated(Type.Normal, "Scale", Regards.ProxyPool),
    /** A pool deleted members (scaled down, or their replacement is in place): counted and named. */
    MembersDeleted(Type.Normal, "Scale", Regards.ProxyPool),
    /** A pool decided to replace a member (banned, unhealthy, too old, or made from an old template). */
    MemberRetired(Type.Normal, "Replace", Regards.ProxyPool),
    /** A pool could not create a member; retried with backoff. */
    MemberCreateFailed(Type.Warning, "Scale", Regards.ProxyPool);

    /** The Event's {@code type}: the two values the API accepts. */
    public enum Type { Normal, Warning }

    /** The kind of object the Event is about: its {@code regarding}. */
    public enum Regards { Proxy, ProxyPool }

    private final Type type;
    private final String action;
    private final Regards regards;

    EventReason(Type type, String action) {
        this(type, action, Regards.Proxy);
    }

    EventReason(Type type, String action, Regards regards) {
        this.type = type;
        this.action = action;
        this.regards = regards;
    }

    /** The kind of object an Event of this reason is about. */
    public Regards regards() {
        return regards;
    }

    public Type type() {
        return type;
    }

    /** The Event's {@code action}: what the operator was doing when this happened. */
    public String action() {
        return action;
    }
}
