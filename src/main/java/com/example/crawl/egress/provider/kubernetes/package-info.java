/**
 * The {@code kubernetes} provider: a Squid pod per Proxy in this cluster, labelled with its
 * owner's UID, observed by polling, never watched.
 *
 * <p>{@code PodProvider} (public: {@code Main} builds it) implements the {@code Provider} and
 * {@code Checker} contracts over the fabric8 client it is given; {@code PodTemplate} builds the
 * pod as a pure function, {@code PodInstance} maps a pod back to an instance state, {@code PodId}
 * is the providerID, {@code ApiFailure} sorts API errors into the provider's error classes.
 *
 * <p>Imports only {@code api}, {@code provider} and {@code config} of this project; never
 * another provider. Starts no threads of its own beyond one short-lived virtual thread per
 * health check, and never closes the client it shares with the rest of the operator.
 */
package com.example.crawl.egress.provider.kubernetes;
