package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.provider.CollectsUnused;
import com.example.crawl.egress.provider.ProviderException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.libvirt.Connect;
import org.libvirt.Domain;
import org.libvirt.Error.ErrorNumber;
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
 *
 * <p><b>Collected when unused.</b> {@link #collect} deletes a base (marker first, then the base,
 * then its records) that nothing on the host has used for the configured time, as
 * {@link UnusedBases} decides from one read of the host's domains and volumes. The read and the
 * deletes are two slot-holding calls, so a create may run between them; every look-up of a base
 * by {@link #ensure} deletes the base's unused-since records, and a base is deleted only if the
 * records it was judged by are still there, so a create that asked for it in between keeps it.
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

    /** What one host's collection did. */
    record Collection(List<CollectsUnused.Deleted> deleted, List<String> held, List<String> failed) {
    }

    /**
     * Deletes the base images of {@code host} that nothing has used for {@code after} by
     * {@code now}; see {@link UnusedBases}. A base whose delete fails is reported in
     * {@link Collection#failed} and the others go on.
     *
     * @throws ProviderException when the host cannot be read or the connection breaks
     */
    Collection collect(String host, Instant now, Duration after) throws ProviderException {
        UnusedBases.Storage storage = calls.call(host, callTimeout, "read domains and storage volumes",
                this::storage);
        return switch (UnusedBases.judge(storage, now, after)) {
            case UnusedBases.Held held -> new Collection(List.of(),
                    held.reasons().stream().map(r -> "host " + host + ": " + r).toList(), List.of());
            case UnusedBases.Judged judged -> {
                Map<String, String> clocks = new HashMap<>();
                for (UnusedBases.Judgement j : judged.bases()) {
                    if (j.verdict() == UnusedBases.Verdict.CLOCK_STARTS) {
                        clocks.put(j.base(), VolumeXml.base(UnusedBases.recordName(j.base(), now), 0,
                                VolumeXml.Format.raw));
                    }
                }
                yield calls.call(host, callTimeout, "delete unused base images",
                        libvirt -> act(host, libvirt, judged, clocks));
            }
        };
    }

    /** Closes the downloader. */
    @Override
    public void close() {
        download.close();
    }

    /**
     * The finished base {@code name}, or null after removing whatever half of it exists. Either
     * way it is about to be used: its unused-since records go.
     */
    private Base finished(Connect libvirt, String name) throws LibvirtException {
        StoragePool storage = libvirt.storagePoolLookupByName(pool);
        for (String record : UnusedBases.records(name, List.of(storage.listVolumes()))) {
            Volumes.delete(storage, record);
        }
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

    /**
     * Everything on the host that may use a base: the pool refreshed first (a file put there by
     * hand shows only then), then every domain, then every volume of every active pool. Domains
     * come before volumes, since a create makes the overlay before the domain: a create that
     * runs meanwhile has its overlay seen, if it has one yet.
     */
    private UnusedBases.Storage storage(Connect libvirt) throws LibvirtException {
        libvirt.storagePoolLookupByName(pool).refresh(0);
        List<UnusedBases.DomainDisks> domains = new ArrayList<>();
        for (Domain domain : libvirt.listAllDomains(0)) {
            String name = "(unnamed)";
            try {
                name = domain.getName();
                domains.add(UnusedBases.DomainDisks.of(name, DiskChains.disks(domain.getXMLDesc(0))));
            } catch (LibvirtException e) {
                if (LibvirtFailure.is(e, ErrorNumber.VIR_ERR_NO_DOMAIN)) {
                    continue; // undefined meanwhile: it uses nothing any more
                }
                if (!libvirt.isAlive()) {
                    throw e;
                }
                domains.add(UnusedBases.DomainDisks.unreadable(name, LibvirtFailure.describe(e)));
            } catch (IllegalArgumentException e) {
                domains.add(UnusedBases.DomainDisks.unreadable(name, e.getMessage()));
            }
        }
        List<String> unreadable = new ArrayList<>();
        for (String inactive : libvirt.listDefinedStoragePools()) {
            unreadable.add("storage pool " + inactive + " is not active, so its volumes cannot be read");
        }
        Map<String, Map<String, DiskChains.Volume>> volumes = new HashMap<>();
        for (String name : libvirt.listStoragePools()) {
            try {
                volumes.put(name, volumes(libvirt.storagePoolLookupByName(name), name, unreadable));
            } catch (LibvirtException e) {
                if (LibvirtFailure.is(e, ErrorNumber.VIR_ERR_NO_STORAGE_POOL)) {
                    continue; // undefined meanwhile
                }
                if (!libvirt.isAlive()) {
                    throw e;
                }
                unreadable.add("storage pool " + name + " cannot be read: " + LibvirtFailure.describe(e));
            }
        }
        return new UnusedBases.Storage(pool, volumes, domains, unreadable);
    }

    private static Map<String, DiskChains.Volume> volumes(StoragePool storage, String pool, List<String> unreadable)
            throws LibvirtException {
        Map<String, DiskChains.Volume> out = new HashMap<>();
        for (String name : storage.listVolumes()) {
            StorageVol volume = Volumes.volume(storage, name);
            String xml;
            try {
                xml = volume == null ? null : volume.getXMLDesc(0);
            } catch (LibvirtException e) {
                if (!LibvirtFailure.is(e, ErrorNumber.VIR_ERR_NO_STORAGE_VOL)) {
                    throw e;
                }
                xml = null;
            }
            if (xml == null) {
                continue; // deleted meanwhile
            }
            try {
                out.put(name, DiskChains.volume(pool, name, xml));
            } catch (IllegalArgumentException e) {
                unreadable.add("volume " + name + " of storage pool " + pool + ": " + e.getMessage());
            }
        }
        return out;
    }

    /** Carries out a host's verdicts; {@code clocks} holds the record XML of each base whose clock starts. */
    private Collection act(String host, Connect libvirt, UnusedBases.Judged judged, Map<String, String> clocks)
            throws LibvirtException {
        StoragePool storage = libvirt.storagePoolLookupByName(pool);
        List<CollectsUnused.Deleted> deleted = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (UnusedBases.Judgement j : judged.bases()) {
            try {
                switch (j.verdict()) {
                    case IN_USE -> deleteAll(storage, j.records());
                    case LEFTOVER -> {
                        Volumes.delete(storage, j.base() + MARKER_SUFFIX);
                        deleteAll(storage, j.records());
                    }
                    case CLOCK_STARTS -> startClock(storage, clocks.get(j.base()));
                    case UNUSED -> {
                        if (stillJudged(storage, j)) {
                            Volumes.delete(storage, j.base() + MARKER_SUFFIX); // first: a cut leaves a base ensure redoes
                            Volumes.delete(storage, j.base());
                            deleteAll(storage, j.records());
                            deleted.add(new CollectsUnused.Deleted("hosts/" + host + "/pools/" + pool + "/volumes/"
                                    + j.base(), j.unusedSince()));
                        }
                    }
                    case INCOMPLETE, TOO_YOUNG -> {
                    }
                }
            } catch (LibvirtException e) {
                if (!libvirt.isAlive()) {
                    throw e;
                }
                failed.add("host " + host + ": base image " + j.base() + " (" + j.verdict() + "): "
                        + LibvirtFailure.describe(e));
            }
        }
        return new Collection(deleted, List.of(), failed);
    }

    private static void startClock(StoragePool storage, String recordXml) throws LibvirtException {
        try {
            storage.storageVolCreateXML(recordXml, 0);
        } catch (LibvirtException e) {
            if (!LibvirtFailure.is(e, ErrorNumber.VIR_ERR_STORAGE_VOL_EXIST)) {
                throw e; // one of the same second, made by another installation sharing the pool, is as good
            }
        }
    }

    /** Whether every record {@code j} was judged by is still there: a create since then deleted them. */
    private static boolean stillJudged(StoragePool storage, UnusedBases.Judgement j) throws LibvirtException {
        for (String record : j.records()) {
            if (Volumes.volume(storage, record) == null) {
                return false;
            }
        }
        return !j.records().isEmpty();
    }

    private static void deleteAll(StoragePool storage, List<String> names) throws LibvirtException {
        for (String name : names) {
            Volumes.delete(storage, name);
        }
    }
}
