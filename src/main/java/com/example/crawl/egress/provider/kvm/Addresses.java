package com.example.crawl.egress.provider.kvm;

import java.util.List;
import java.util.Map;

/**
 * The address a domain's Proxy is reached on, chosen from what libvirt's interface-address
 * sources report, as a pure function over their answers.
 *
 * <p>Sources are asked in {@link Source} order and the first routable IPv4 address wins:
 * {@link Source#lease} first (the libvirt network's DHCP lease, known without the guest's help),
 * then {@link Source#arp} (the host's neighbour table), then {@link Source#agent} (the guest agent,
 * which needs qemu-guest-agent in the image). A source that failed is simply absent from the
 * answers: the ARP source fails outright on some hosts (libvirt 9.0 on recent kernels answers
 * "wrong nlmsg len"), and the agent fails until the guest runs one, and neither may keep the
 * others from answering.
 *
 * <p>Routable here means a unicast IPv4 address a client could be pointed at: not "this network"
 * ({@code 0.0.0.0/8}), not loopback ({@code 127.0.0.0/8}, which the agent reports for {@code lo}),
 * not link-local ({@code 169.254.0.0/16}, an address a guest gives itself without DHCP), not
 * multicast or reserved ({@code 224.0.0.0/3}). Private addresses are routable: a NAT network's
 * guests have nothing else. IPv6 is skipped: the proxies are published by their IPv4 address.
 */
final class Addresses {

    /** libvirt's interface-address sources, in the order they are believed. */
    enum Source { lease, arp, agent }

    private Addresses() {
    }

    /**
     * The first routable IPv4 address, in source order and then in the order each source listed
     * them, or null when there is none.
     *
     * @param answers addresses per source that answered, each as libvirt prints it (an address,
     *                optionally with {@code /prefix}); a source that failed is left out
     */
    static String pick(Map<Source, List<String>> answers) {
        for (Source source : Source.values()) {
            for (String address : answers.getOrDefault(source, List.of())) {
                String ip = routableIpv4(address);
                if (ip != null) {
                    return ip;
                }
            }
        }
        return null;
    }

    /**
     * {@code address} without its prefix if it is a routable dotted-quad IPv4 address, else null.
     * Parsed by hand: {@code InetAddress.getByName} would look a name up in DNS.
     */
    static String routableIpv4(String address) {
        if (address == null) {
            return null;
        }
        int slash = address.indexOf('/');
        String ip = (slash < 0 ? address : address.substring(0, slash)).strip();
        String[] parts = ip.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        int[] octets = new int[4];
        for (int i = 0; i < 4; i++) {
            if (parts[i].isEmpty() || parts[i].length() > 3 || !parts[i].chars().allMatch(c -> c >= '0' && c <= '9')) {
                return null;
            }
            octets[i] = Integer.parseInt(parts[i]);
            if (octets[i] > 255) {
                return null;
            }
        }
        boolean unroutable = octets[0] == 0 || octets[0] == 127 || octets[0] == 169 && octets[1] == 254
                || octets[0] >= 224;
        return unroutable ? null : octets[0] + "." + octets[1] + "." + octets[2] + "." + octets[3];
    }
}
