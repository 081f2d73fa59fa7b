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
 * {@link com.example.crawl.egress.provider.kvm.DomainState} and
 * {@link com.example.crawl.egress.provider.kvm.Addresses}.
 *
 * <p>Imports only {@code api}, {@code provider} and {@code config}; never another provider.
 */
package com.example.crawl.egress.provider.kvm;
