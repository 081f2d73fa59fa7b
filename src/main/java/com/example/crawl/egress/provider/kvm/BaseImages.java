package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.provider.ProviderException;
import java.time.Duration;
import org.libvirt.Connect;
import org.libvirt.LibvirtException;
import org.libvirt.StoragePool;
import org.libvirt.StorageVol;

/**
 * The base images in each host's pool: downloaded by the operator on first use, verified, and
 * uploaded once through a libvirt stream.
 *
 * <p><b>Complete or absent.</b> A base volume counts only when its marker volume
 * ({@code <base>}{@value #MARKER_SUFFIX}, empty) exists too, and the marker is created after the
 * upload has finished. An upload cut halfway (its deadline, a broken connection, the operator
 * killed) leaves a base without a marker; the next attempt deletes that volume and uploads again
 * from the start. The look-up, the upload and the marker each run while holding the host's
 * slot, so two creates of the same image never see each other's half-made volume: the second
 * finds the finished one when its turn comes, and does not upload again.
 */
final class BaseImages implements AutoCloseable {

    static final String MARKER_SUFFIX = ".complete";

    private final HostCalls calls;
    private final String pool;
    private final ImageDownload download;
    private final Duration callTimeout;
    private final Duration uploadTimeout;

    BaseImages(HostCalls calls, String pool, ImageDownload download, Duration callTimeout, Duration uploadTimeout) {
        this.calls = calls;
        this.pool = pool;
        this.download = download;
        this.callTimeout = callTimeout;
        this.uploadTimeout = uploadTimeout;
    }

    /** A finished base image: the path libvirt gives it on the host, and its format. */
    record Base(String path, VolumeXml.Format format) {
    }

    /**
     * The base image of {@code image} on {@code host}, downloaded and uploaded first if the pool
     * has no finished copy. Blocks for the download and upload (minutes for a cloud image).
     */
    Base ensure(String host, KvmSpec.Image image) throws ProviderException {
        String name = VolumeXml.baseName(image);
        Base ready = calls.call(host, callTimeout, "look up base image " + name, libvirt -> finished(libvirt, name));
        if (ready != null) {
            return ready;
        }
        ImageDownload.Fetched fetched = download.fetch(image);
        try {
            String baseXml = VolumeXml.base(name, fetched.size(), fetched.format());
            String markerXml = VolumeXml.base(name + MARKER_SUFFIX, 0, VolumeXml.Format.raw);
            return calls.call(host, uploadTimeout, "upload base image " + name, libvirt -> {
                Base meanwhile = finished(libvirt, name); // another create may have uploaded it
                if (meanwhile != null) {
                    return meanwhile;
                }
                StoragePool storage = libvirt.storagePoolLookupByName(pool);
                StorageVol base = Volumes.upload(libvirt, storage, name, baseXml,
                        Volumes.Source.of(fetched.file(), fetched.size()));
                storage.storageVolCreateXML(markerXml, 0);
                return new Base(base.getPath(), fetched.format());
            });
        } finally {
            ImageDownload.deleteQuietly(fetched.file());
        }
    }

    /** Closes the downloader. */
    @Override
    public void close() {
        download.close();
    }

    /** The finished base {@code name}, or null after removing whatever half of it exists. */
    private Base finished(Connect libvirt, String name) throws LibvirtException {
        StoragePool storage = libvirt.storagePoolLookupByName(pool);
        StorageVol base = Volumes.volume(storage, name);
        StorageVol marker = Volumes.volume(storage, name + MARKER_SUFFIX);
        if (base != null && marker != null) {
            return new Base(base.getPath(), Volumes.format(base));
        }
        if (base != null) {
            Volumes.delete(storage, name); // an upload that never finished
        }
        if (marker != null) {
            Volumes.delete(storage, name + MARKER_SUFFIX); // its base was deleted by hand
        }
        return null;
    }
}
