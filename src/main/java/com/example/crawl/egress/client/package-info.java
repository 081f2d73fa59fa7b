/**
 * Discovery clients: each a Secret labelled {@code crawl.example.com/discovery-client=true} that
 * holds a token and what it may do (its scope, access, quotas and weight). The Secrets are parsed
 * and watched here, and kept in a registry that finds a client by its token's digest and keeps
 * each client's lease-rate bucket; discovery asks it on every request.
 *
 * <p>Runs on every replica. Imports of this project only {@code clock}, {@code queue}'s token
 * bucket and the runtime's Event seam ({@code LayeringTest}).
 */
package com.example.crawl.egress.client;
