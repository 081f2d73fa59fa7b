package com.example.crawl.egress.local;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP sockets a process listens on, as the kernel reports them: the process's socket
 * descriptors ({@code /proc/<pid>/fd}) matched by inode against the listening sockets of its
 * network namespace ({@code /proc/<pid>/net/tcp} and {@code tcp6}). Read from outside the
 * process, so it is what the machine's network sees, whatever the process meant to bind. Linux
 * only; the process must be the caller's user's (or the caller root).
 */
final class ListeningSockets {

    /** {@code TCP_LISTEN} in the kernel's {@code st} column. */
    private static final String LISTEN = "0A";

    /** One listening socket: the local address and port it is bound to. */
    record Listener(InetAddress address, int port) {
        @Override
        public String toString() {
            String host = address.getHostAddress();
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    private ListeningSockets() {
    }

    /** What {@code pid} listens on; nothing when the process is gone (or ends while being read). */
    static List<Listener> of(long pid) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            Set<String> inodes = socketInodes(proc.resolve("fd"));
            List<Listener> out = new ArrayList<>();
            for (String table : List.of("tcp", "tcp6")) {
                List<String> lines = Files.readAllLines(proc.resolve("net").resolve(table));
                for (String line : lines.subList(1, lines.size())) { // after the header
                    String[] f = line.strip().split("\\s+");
                    if (f[3].equals(LISTEN) && inodes.contains(f[9])) {
                        out.add(listener(f[1]));
                    }
                }
            }
            return List.copyOf(out);
        } catch (NoSuchFileException gone) {
            return List.of();
        }
    }

    /** The inodes of the process's open sockets: its descriptors that link to {@code socket:[inode]}. */
    private static Set<String> socketInodes(Path fds) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> all = Files.list(fds)) {
            for (Path fd : all.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (NoSuchFileException closed) {
                    // closed while listed
                }
            }
        }
        return inodes;
    }

    /**
     * {@code 0100007F:1F9A} (IPv4) or 32 hex digits and a port (IPv6): the address is printed as
     * 32-bit words in the machine's byte order, the port in network order.
     */
    private static Listener listener(String hexAddressAndPort) throws IOException {
        int colon = hexAddressAndPort.indexOf(':');
        byte[] raw = HexFormat.of().parseHex(hexAddressAndPort.substring(0, colon));
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
            for (int word = 0; word < raw.length; word += 4) {
                for (int i = 0; i < 2; i++) {
                    byte b = raw[word + i];
                    raw[word + i] = raw[word + 3 - i];
                    raw[word + 3 - i] = b;
                }
            }
        }
        // An IPv4-mapped IPv6 address (an IPv4 bind on a dual-stack socket) comes back as IPv4.
        return new Listener(InetAddress.getByAddress(raw), Integer.parseInt(hexAddressAndPort.substring(colon + 1), 16));
    }
}
