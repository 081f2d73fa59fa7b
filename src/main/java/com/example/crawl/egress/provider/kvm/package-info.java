/**
 * The {@code kvm} provider: libvirt domains on hosts reached over SSH, with the libvirt socket
 * forwarded per host, base images cached in a pool and a NoCloud seed per VM. Native libvirt
 * calls run on platform threads, each bounded by a deadline.
 *
 * <p>Its pure part turns a request into what libvirt is handed and maps what libvirt answers,
 * without I/O: {@link com.example.crawl.egress.provider.kvm.DomainXml} and
 * {@link com.example.crawl.egress.provider.kvm.VolumeXml} (the documents, over
 * {@link com.example.crawl.egress.provider.kvm.XmlDoc}),
 * {@link com.example.crawl.egress.provider.kvm.DomainOwner} (ownership in {@code <metadata>}),
 * {@link com.example.crawl.egress.provider.kvm.SeedIso} (over
 * {@link com.example.crawl.egress.provider.kvm.IsoImage}),
 * {@link com.example.crawl.egress.provider.kvm.DomainId},
 * {@link com.example.crawl.egress.provider.kvm.DomainState},
 * {@link com.example.crawl.egress.provider.kvm.Addresses},
 * {@link com.example.crawl.egress.provider.kvm.DiskChains} (which files disks and volumes read)
 * and {@link com.example.crawl.egress.provider.kvm.UnusedBases} (when a base image may go).
 *
 * <p>Connections: {@link com.example.crawl.egress.provider.kvm.HostPool} holds one
 * {@link com.example.crawl.egress.provider.kvm.HostSlot} per configured host, which dials a
 * {@link com.example.crawl.egress.provider.kvm.HostConnection} on first use (sshj with the key and
 * known_hosts read at start into memory, the libvirt socket forwarded over
 * {@code direct-streamlocal@openssh.com} to a private local socket, libvirt-java over that) and
 * lends it to one call at a time. Dial failures are tagged by stage
 * ({@link com.example.crawl.egress.provider.kvm.DialFailure}).
 *
 * <p>The provider: {@link com.example.crawl.egress.provider.kvm.KvmProvider} makes, reads, deletes
 * and lists domains through the pool, one step per call, each step finding what an earlier attempt
 * left; {@link com.example.crawl.egress.provider.kvm.BaseImages} keeps one verified copy of each
 * base image per host (complete only with its marker volume) and, at each orphan sweep, deletes
 * those nothing on the host has used for {@code kvm.deleteUnusedImagesAfter};
 * {@link com.example.crawl.egress.provider.kvm.LibvirtFailure} sorts libvirt's errors and
 * {@link com.example.crawl.egress.provider.kvm.KvmCheck} the checker's reasons.
 *
 * <p>Imports only {@code api}, {@code provider} and {@code config}; never another provider. Writes
 * no key material anywhere and logs nothing itself: failures reach the caller as
 * {@code ProviderException}s.
 */
package com.example.crawl.egress.provider.kvm;
