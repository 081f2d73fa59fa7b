package com.example.crawl.egress.provider.kvm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.libvirt.Connect;
import org.libvirt.Domain;
import org.libvirt.Error.ErrorNumber;
import org.libvirt.LibvirtException;
import org.libvirt.StoragePool;
import org.libvirt.StorageVol;
import org.libvirt.Stream;

/**
 * libvirt look-ups that answer "absent" with null, and uploads through a libvirt stream. Called
 * only inside a {@code HostPool} call, on the host's platform thread.
 */
final class Volumes {

    private static final int CHUNK = 1 << 18;
    private static final Pattern FORMAT = Pattern.compile("<format\\s+type=['\"](\\w+)['\"]");

    private Volumes() {
    }

    /** The domain named {@code name}, or null. */
    static Domain domain(Connect libvirt, String name) throws LibvirtException {
        try {
            return libvirt.domainLookupByName(name);
        } catch (LibvirtException e) {
            if (LibvirtFailure.is(e, ErrorNumber.VIR_ERR_NO_DOMAIN)) {
                return null;
            }
            throw e;
        }
    }

    /** The volume named {@code name} in {@code pool}, or null. */
    static StorageVol volume(StoragePool pool, String name) throws LibvirtException {
        try {
            return pool.storageVolLookupByName(name);
        } catch (LibvirtException e) {
            if (LibvirtFailure.is(e, ErrorNumber.VIR_ERR_NO_STORAGE_VOL)) {
                return null;
            }
            throw e;
        }
    }

    /** Deletes the volume named {@code name} in {@code pool}; one already gone is fine. */
    static void delete(StoragePool pool, String name) throws LibvirtException {
        StorageVol volume = volume(pool, name);
        if (volume == null) {
            return;
        }
        try {
            volume.delete(0);
        } catch (LibvirtException e) {
            if (!LibvirtFailure.is(e, ErrorNumber.VIR_ERR_NO_STORAGE_VOL)) {
                throw e;
            }
        }
    }

    /** The format a volume's XML declares for its own target ({@code qcow2}, {@code raw}). */
    static VolumeXml.Format format(StorageVol volume) throws LibvirtException {
        String xml = volume.getXMLDesc(0);
        int target = xml.indexOf("<target>");
        Matcher m = FORMAT.matcher(xml);
        if (target >= 0 && m.find(target) && m.group(1).equals("qcow2")) {
            return VolumeXml.Format.qcow2;
        }
        return VolumeXml.Format.raw;
    }

    /**
     * Creates volume {@code xml} in {@code pool} and fills it with {@code bytes}; on any failure
     * aborts the stream and deletes the volume again, so a failed upload leaves nothing behind
     * (a cut connection cannot clean up: the caller's marker catches that case).
     */
    static StorageVol upload(Connect libvirt, StoragePool pool, String name, String xml, Source bytes)
            throws LibvirtException {
        StorageVol volume = pool.storageVolCreateXML(xml, 0);
        Stream stream = null;
        try {
            stream = libvirt.streamNew(0);
            volume.upload(stream, 0, bytes.length(), 0);
            bytes.send(stream);
            stream.finish();
            return volume;
        } catch (LibvirtException | RuntimeException e) {
            abort(stream);
            try {
                delete(pool, name);
            } catch (LibvirtException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    private static void abort(Stream stream) {
        if (stream == null) {
            return;
        }
        try {
            stream.abort();
        } catch (LibvirtException e) {
            // the stream is already broken; the volume's deletion follows
        }
    }

    /** What an upload sends: a length known in advance, then the bytes. */
    interface Source {
        long length();

        void send(Stream stream) throws LibvirtException;

        static Source of(byte[] data) {
            return new Source() {
                @Override
                public long length() {
                    return data.length;
                }

                @Override
                public void send(Stream stream) throws LibvirtException {
                    sendAll(stream, data, data.length);
                }
            };
        }

        static Source of(Path file, long length) {
            return new Source() {
                @Override
                public long length() {
                    return length;
                }

                @Override
                public void send(Stream stream) throws LibvirtException {
                    try (InputStream in = Files.newInputStream(file)) {
                        byte[] buffer = new byte[CHUNK];
                        for (int n; (n = in.readNBytes(buffer, 0, buffer.length)) > 0; ) {
                            sendAll(stream, buffer, n);
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            };
        }
    }

    private static void sendAll(Stream stream, byte[] data, int length) throws LibvirtException {
        byte[] rest = length == data.length ? data : Arrays.copyOf(data, length);
        while (rest.length > 0) {
            int sent = stream.send(rest);
            if (sent <= 0) {
                throw new IllegalStateException("libvirt stream accepted no bytes (" + sent + ")");
            }
            rest = Arrays.copyOfRange(rest, sent, rest.length);
        }
    }
}
