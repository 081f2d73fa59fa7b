/**
 * The composition root: {@code Main} runs the process (configuration, logging, exit codes), and
 * {@code Operator} builds every component with {@code new} (in a cluster or, with
 * {@code --local}, around local mode's embedded API server), wires each by constructor, starts the leader-only components when the Lease is won, and stops
 * everything in the fixed order of its shutdown stages. It also owns what is process-wide: the
 * JDK HTTP server's connection limits, the {@code /healthz} and {@code /readyz} endpoints, and the
 * list of every Kubernetes API call the operator makes, which the RBAC manifests are held to.
 *
 * <p>Runs on every replica. Reconciles, probes and lends nothing itself. No other package may
 * refer to {@code Main} or set the JVM-wide server limits; only this package imports
 * {@code events} and {@code metrics}, and only it and {@code metrics} import Prometheus
 * ({@code LayeringTest}).
 */
package com.example.crawl.egress;
