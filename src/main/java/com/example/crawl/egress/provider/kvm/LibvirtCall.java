package com.example.crawl.egress.provider.kvm;

import org.libvirt.Connect;
import org.libvirt.LibvirtException;

/** Work on a host's libvirt connection, run by {@link HostSlot} on a platform thread. */
@FunctionalInterface
interface LibvirtCall<T> {

    T call(Connect libvirt) throws LibvirtException;
}
