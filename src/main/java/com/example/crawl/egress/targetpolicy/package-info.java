/**
 * TargetPolicy objects turned into the lease store's site policies: an index every replica
 * rebuilds from its informer cache at each change (so that discovery applies a change within the
 * moment the watch event arrives), and the controller that writes each policy's {@code Accepted}
 * condition, on the leader only.
 *
 * <p>Imports of this project only the api, the lease seam, the runtime, the cache, the config and
 * the clock ({@code LayeringTest}).
 */
package com.example.crawl.egress.targetpolicy;
