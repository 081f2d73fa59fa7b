/**
 * The {@code kvm} provider: libvirt domains on hosts reached over SSH, with the libvirt socket
 * forwarded per host, base images cached in a pool and a NoCloud seed per VM. Native libvirt
 * calls run on platform threads, each bounded by a deadline.
 *
 * <p>Imports only {@code api}, {@code provider} and {@code config}; never another provider.
 */
package com.example.crawl.egress.provider.kvm;
