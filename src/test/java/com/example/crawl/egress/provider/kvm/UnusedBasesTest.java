package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.provider.kvm.DiskChains.Disk;
import com.example.crawl.egress.provider.kvm.DiskChains.Layer;
import com.example.crawl.egress.provider.kvm.UnusedBases.DomainDisks;
import com.example.crawl.egress.provider.kvm.UnusedBases.Judgement;
import com.example.crawl.egress.provider.kvm.UnusedBases.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The rule for deleting a base image, one condition at a time: each use, each thing that cannot
 * be read, and the clock. Every kept base differs from a deleted one in one respect only.
 */
class UnusedBasesTest {

    private static final String POOL = "egress";
    private static final String DIR = "/var/lib/libvirt/images/egress/";
    private static final String BASE = VolumeXml.BASE_PREFIX + "sha256-" + "ab".repeat(32) + ".img";
    private static final Instant NOW = Instant.parse("2026-12-08T12:00:00Z");
    private static final Duration WEEK = Duration.ofDays(7);
    private static final String OLD = UnusedBases.recordName(BASE, NOW.minus(WEEK));

    private final Map<String, Map<String, DiskChains.Volume>> volumes = new HashMap<>();
    private final List<DomainDisks> domains = new ArrayList<>();
    private final List<String> unreadable = new ArrayList<>();

    UnusedBasesTest() {
        volumes.put(POOL, new HashMap<>());
    }

    @Test
    void shouldDeleteABaseUnusedForTheWholeTimeWithItsMarkerAndRecord() {
        complete(BASE);
        volume(POOL, OLD, null);

        Judgement j = only();
        assertEquals(Verdict.UNUSED, j.verdict());
        assertEquals(NOW.minus(WEEK), j.unusedSince());
        assertEquals(List.of(OLD), j.records());
    }

    @Test
    void shouldKeepABaseUnusedForLessThanTheTime() {
        complete(BASE);
        volume(POOL, UnusedBases.recordName(BASE, NOW.minus(WEEK).plusSeconds(1)), null);

        assertEquals(Verdict.TOO_YOUNG, only().verdict());
    }

    @Test
    void shouldStartTheClockOfAnUnusedBaseWithoutRecord() {
        complete(BASE);

        assertEquals(Verdict.CLOCK_STARTS, only().verdict());
        assertEquals(BASE + ".unused-since-20261208T120000Z", UnusedBases.recordName(BASE, NOW.plusMillis(999)));
    }

    @Test
    void shouldCountTheLatestRecordAndIgnoreOneThatDoesNotParse() {
        complete(BASE);
        volume(POOL, OLD, null);
        String later = UnusedBases.recordName(BASE, NOW.minus(Duration.ofDays(1)));
        volume(POOL, later, null);
        volume(POOL, BASE + UnusedBases.RECORD_INFIX + "yesterday", null);

        Judgement j = only();
        assertEquals(Verdict.TOO_YOUNG, j.verdict());
        assertEquals(NOW.minus(Duration.ofDays(1)), j.unusedSince());
        assertEquals(3, j.records().size(), "all of them go when it is deleted or used");
    }

    @Test
    void shouldStartTheClockWhenNoRecordParses() {
        complete(BASE);
        volume(POOL, BASE + UnusedBases.RECORD_INFIX + "yesterday", null);

        assertEquals(Verdict.CLOCK_STARTS, only().verdict());
    }

    @Test
    void shouldKeepABaseAnOverlayVolumeIsBackedByEvenWithoutADomain() {
        complete(BASE);
        volume(POOL, OLD, null);
        volume(POOL, "proxy-a.qcow2", new Layer(DIR + BASE, "qcow2")); // a create between overlay and define

        Judgement j = only();
        assertEquals(Verdict.IN_USE, j.verdict());
        assertEquals(List.of(OLD), j.records(), "its clock stops");
    }

    @Test
    void shouldKeepABaseUnderAChainOfOverlaysInAnotherPool() {
        complete(BASE);
        volume(POOL, OLD, null);
        volumes.put("other", new HashMap<>());
        volume(POOL, "mid.qcow2", new Layer(DIR + BASE, "qcow2"));
        volume("other", "top.qcow2", new Layer(DIR + "mid.qcow2", "qcow2"));

        assertEquals(Verdict.IN_USE, only().verdict());
    }

    @Test
    void shouldKeepABaseThatAStoppedDomainsVolumeDiskIsAnOverlayOf() {
        complete(BASE);
        volume(POOL, OLD, null);
        volume(POOL, "proxy-a.qcow2", new Layer(DIR + BASE, "qcow2"));
        domain("proxy-a", new Disk("vda", new DiskChains.PoolVolume(POOL, "proxy-a.qcow2"), "qcow2", List.of(), false));

        assertEquals(Verdict.IN_USE, only().verdict());
    }

    @Test
    void shouldKeepABaseAForeignDomainOpensDirectly() {
        complete(BASE);
        volume(POOL, OLD, null);
        domain("someone-elses", new Disk("vda", new DiskChains.File(DIR + BASE), "qcow2", List.of(), false));

        assertEquals(Verdict.IN_USE, only().verdict());
    }

    @Test
    void shouldKeepABaseARunningDomainsChainNamesThroughAFileOutsideEveryPool() {
        complete(BASE);
        volume(POOL, OLD, null);
        domain("someone-elses", new Disk("vda", new DiskChains.File("/srv/vm/top.qcow2"), "qcow2",
                List.of(new Layer(DIR + BASE, "qcow2")), true));

        assertEquals(Verdict.IN_USE, only().verdict(), "the live chain is QEMU's own; no hold for /srv/vm");
    }

    @Test
    void shouldGoOnWithARawFileOutsideEveryPoolAndAnEmptyDrive() {
        complete(BASE);
        volume(POOL, OLD, null);
        domain("someone-elses", new Disk("vda", new DiskChains.File("/srv/vm/disk.raw"), "raw", List.of(), false),
                new Disk("vdb", new DiskChains.File("/dev/sdb"), null, List.of(), false),
                new Disk("sda", new DiskChains.Empty(), "raw", List.of(), false),
                new Disk("vdc", new DiskChains.Elsewhere("network"), "raw", List.of(), false));

        assertEquals(Verdict.UNUSED, only().verdict());
    }

    @Test
    void shouldHoldTheHostForADomainThatCannotBeRead() {
        assertHeld("domain big cannot be read: VIR_ERR_RPC: Unable to encode message payload",
                () -> domains.add(DomainDisks.unreadable("big", "VIR_ERR_RPC: Unable to encode message payload")));
    }

    @Test
    void shouldHoldTheHostForAStoppedDomainsQcow2OutsideEveryPool() {
        assertHeld("domain other, disk vda: /srv/vm/a.qcow2 (format qcow2) is not a volume of an active storage pool, "
                + "so what it is backed by cannot be read", () -> domain("other",
                new Disk("vda", new DiskChains.File("/srv/vm/a.qcow2"), "qcow2", List.of(), false)));
    }

    @Test
    void shouldHoldTheHostForADiskInAPoolThatIsNotActive() {
        assertHeld("domain other, disk vda: its volume a.qcow2 is in pool stopped, which is not active",
                () -> domain("other", new Disk("vda", new DiskChains.PoolVolume("stopped", "a.qcow2"), "qcow2",
                        List.of(), false)));
    }

    @Test
    void shouldHoldTheHostForANetworkDiskThatMayHaveABackingFile() {
        assertHeld("domain other, disk vdc: a network disk in format qcow2, whose backing file cannot be read",
                () -> domain("other", new Disk("vdc", new DiskChains.Elsewhere("network"), "qcow2", List.of(), false)));
    }

    @Test
    void shouldHoldTheHostForAVolumeBackedByAFileOutsideEveryPool() {
        assertHeld("volume top.qcow2 of pool egress: /srv/golden.qcow2 (format qcow2) is not a volume of an active "
                + "storage pool, so what it is backed by cannot be read",
                () -> volume(POOL, "top.qcow2", new Layer("/srv/golden.qcow2", "qcow2")));
    }

    @Test
    void shouldHoldTheHostForAPoolThatCannotBeRead() {
        assertHeld("storage pool spare is not active, so its volumes cannot be read",
                () -> unreadable.add("storage pool spare is not active, so its volumes cannot be read"));
    }

    @Test
    void shouldLeaveABaseWithoutMarkerToTheUploadUnlessACollectionWasCutThere() {
        volume(POOL, BASE, null);
        assertEquals(Verdict.INCOMPLETE, only().verdict(), "an upload under way or cut: ensure's business");

        volume(POOL, OLD, null); // the marker went, the base did not
        assertEquals(Verdict.UNUSED, only().verdict());
    }

    @Test
    void shouldDeleteAMarkerAndRecordsWhoseBaseIsGone() {
        volume(POOL, BASE + BaseImages.MARKER_SUFFIX, null);
        volume(POOL, OLD, null);

        Judgement j = only();
        assertEquals(Verdict.LEFTOVER, j.verdict());
        assertEquals(List.of(OLD), j.records());
    }

    @Test
    void shouldJudgeOnlyTheProvidersBaseImagesAndEachOnItsOwn() {
        String other = VolumeXml.BASE_PREFIX + "url-" + "cd".repeat(32) + ".img";
        complete(BASE);
        volume(POOL, OLD, null);
        complete(other);
        volume(POOL, "proxy-a.qcow2", new Layer(DIR + other, "qcow2"));
        volume(POOL, "proxy-a-seed.iso", null);
        volume(POOL, VolumeXml.BASE_PREFIX + "hand-made.img", null);

        List<Judgement> judged = assertInstanceOf(UnusedBases.Judged.class, judge()).bases();
        assertEquals(List.of(BASE, other), judged.stream().map(Judgement::base).toList());
        assertEquals(List.of(Verdict.UNUSED, Verdict.IN_USE), judged.stream().map(Judgement::verdict).toList());
    }

    @Test
    void shouldFindABasesRecordsAmongThePoolsNames() {
        assertEquals(List.of(OLD), UnusedBases.records(BASE, List.of(BASE, BASE + BaseImages.MARKER_SUFFIX, OLD,
                "proxy-a.qcow2")));
    }

    @Test
    void shouldRefuseATimeThatIsNotAboveZero() {
        assertThrows(IllegalArgumentException.class, () -> UnusedBases.judge(storage(), NOW, Duration.ZERO));
    }

    private void assertHeld(String reason, Runnable cause) {
        complete(BASE);
        volume(POOL, OLD, null);
        assertEquals(Verdict.UNUSED, only().verdict(), "deleted without the cause");

        cause.run();

        UnusedBases.Held held = assertInstanceOf(UnusedBases.Held.class, judge());
        assertEquals(List.of(reason), held.reasons());
    }

    private Judgement only() {
        List<Judgement> judged = assertInstanceOf(UnusedBases.Judged.class, judge()).bases();
        assertEquals(1, judged.size(), judged.toString());
        return judged.getFirst();
    }

    private UnusedBases.Plan judge() {
        UnusedBases.Plan plan = UnusedBases.judge(storage(), NOW, WEEK);
        assertTrue(plan != null);
        return plan;
    }

    private UnusedBases.Storage storage() {
        return new UnusedBases.Storage(POOL, volumes, domains, unreadable);
    }

    private void complete(String base) {
        volume(POOL, base, null);
        volume(POOL, base + BaseImages.MARKER_SUFFIX, null);
    }

    private void volume(String pool, String name, Layer backing) {
        String dir = pool.equals(POOL) ? DIR : "/var/lib/libvirt/images/" + pool + "/";
        volumes.get(pool).put(name, new DiskChains.Volume(pool, name, dir + name, backing));
    }

    private void domain(String name, Disk... disks) {
        domains.add(DomainDisks.of(name, List.of(disks)));
    }
}
