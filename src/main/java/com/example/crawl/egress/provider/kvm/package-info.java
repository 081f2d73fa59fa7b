/**
 * The {@code kvm} provider ({@code docs/providers/kvm.md}): a libvirt domain per Proxy on a host
 * reached over SSH, libvirt's socket forwarded through the SSH connection, nothing on the host
 * listening for libvirt on the network. Each host has one connection and one slot: one call at a
 * time, on a platform thread of the host's (libvirt is native), cut at the caller's deadline, or
 * for a check abandoned, since reconciles share the connection. A create is a series of steps,
 * each finding what an earlier attempt left: a verified base image per host (complete only with
 * its marker), an overlay, a seed ISO with the merged cloud-init, then the domain, whose owner is
 * recorded in its XML metadata because libvirt has no labels. At each orphan sweep it deletes the
 * base images nothing on a host has used for {@code deleteUnusedImagesAfter}, and none on a host
 * where anything it would have to read cannot be read.
 *
 * <p>Imports of this project only {@code api}, {@code provider} and {@code config}, never another
 * provider ({@code LayeringTest}). Keeps key material in memory only and logs nothing itself:
 * failures reach the caller as provider errors naming the host and the step.
 */
package com.example.crawl.egress.provider.kvm;
