package com.example.crawl.egress.provider.kvm;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a base image may be deleted from a host's pool, as a pure function of what the host
 * holds ({@link Storage}) and the time: only when nothing on that host uses it, and nothing has
 * for the configured time.
 *
 * <p><b>In use</b> means: some file that a domain's disk opens, or some volume of an active pool,
 * is the base or has it below, however deep the chain. Every domain counts, ours or not, running
 * or stopped, and every volume, attached or not (an overlay made by a create that has not defined
 * its domain yet). Chains are followed through the volumes libvirt knows (a volume's XML names its
 * backing file), and through a running domain's own XML (QEMU's chain as libvirt read it at start).
 *
 * <p><b>Cannot prove it</b>: a domain that cannot be read, a pool that is not active or cannot be
 * read, a disk in a pool that is not active, or a file that may have a backing file (any format
 * but raw) and is not a volume of an active pool, so that nothing tells what lies below it. Then
 * the whole host is {@link Held}: nothing is deleted there, and no clock is started or cleared,
 * until it can be read again.
 *
 * <p><b>Unused since when</b>: the pool remembers it in a record volume, empty, named
 * {@code <base>}{@value #RECORD_INFIX}{@code <yyyyMMddTHHmmssZ>} (UTC): made by the first
 * collection that finds the base unused, deleted by the first one that finds it in use and by
 * every create that asks for the base ({@link BaseImages#ensure}), so a create between two
 * collections restarts the clock too. Several records (a crash between two steps) count by the
 * latest; a record whose time does not parse is ignored.
 *
 * <p>Verdicts per base ({@link Verdict}); a base without its marker is a half-finished upload
 * and only {@code ensure} deals with it, unless it has a record (a collection cut between
 * deleting the marker and the base), which this rule goes on with.
 */
final class UnusedBases {

    static final String RECORD_INFIX = ".unused-since-";
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);
    private static final Pattern NAME = Pattern.compile("(" + Pattern.quote(VolumeXml.BASE_PREFIX)
            + "(?:sha256|url)-[0-9a-f]{64}\\.img)(?:(" + Pattern.quote(BaseImages.MARKER_SUFFIX) + ")|"
            + Pattern.quote(RECORD_INFIX) + "(.*))?");

    private UnusedBases() {
    }

    /** What one base gets. */
    enum Verdict {
        /** Something uses it: its records, if any, are deleted (the clock stops). */
        IN_USE,
        /** A base volume without marker or record: an upload under way or cut; left to {@code ensure}. */
        INCOMPLETE,
        /** Unused and no record yet: one is made now (the clock starts). */
        CLOCK_STARTS,
        /** Unused for less than the configured time. */
        TOO_YOUNG,
        /** Unused for at least the configured time: the marker, the base and its records are deleted, in that order. */
        UNUSED,
        /** A marker or records whose base is gone: deleted, since they name nothing. */
        LEFTOVER
    }

    /**
     * What a host holds, read in one call.
     *
     * @param pool       the provider's pool, where base images live
     * @param volumes    every volume of every active pool, by pool name, then volume name; an
     *                   active pool without volumes has an empty map
     * @param domains    every domain on the host
     * @param unreadable one line per thing that could not be read apart from domains (a pool that
     *                   is not active, a volume whose XML failed)
     */
    record Storage(String pool, Map<String, Map<String, DiskChains.Volume>> volumes, List<DomainDisks> domains,
            List<String> unreadable) {
        Storage {
            volumes = Map.copyOf(volumes);
            domains = List.copyOf(domains);
            unreadable = List.copyOf(unreadable);
        }
    }

    /**
     * One domain's disks, or why they could not be read.
     *
     * @param unreadable null when {@code disks} was read
     */
    record DomainDisks(String name, List<DiskChains.Disk> disks, String unreadable) {
        static DomainDisks of(String name, List<DiskChains.Disk> disks) {
            return new DomainDisks(name, List.copyOf(disks), null);
        }

        static DomainDisks unreadable(String name, String why) {
            return new DomainDisks(name, List.of(), why);
        }
    }

    /** The rule's answer for a host. */
    sealed interface Plan permits Held, Judged {
    }

    /** Nothing is judged on this host: why, one line per cause. */
    record Held(List<String> reasons) implements Plan {
        Held {
            reasons = List.copyOf(reasons);
        }
    }

    /** A verdict for every base of the pool. */
    record Judged(List<Judgement> bases) implements Plan {
        Judged {
            bases = List.copyOf(bases);
        }
    }

    /**
     * One base's verdict.
     *
     * @param base        the base volume's name
     * @param unusedSince the latest record's time; null when there is none (or when in use)
     * @param records     the names of its record volumes
     */
    record Judgement(String base, Verdict verdict, Instant unusedSince, List<String> records) {
        Judgement {
            records = List.copyOf(records);
        }
    }

    /** The record volume saying {@code base} is unused since {@code since} (to the second). */
    static String recordName(String base, Instant since) {
        return base + RECORD_INFIX + STAMP.format(since.truncatedTo(ChronoUnit.SECONDS));
    }

    /** The names among {@code volumes} that are records of {@code base}. */
    static List<String> records(String base, List<String> volumes) {
        return volumes.stream().filter(v -> v.startsWith(base + RECORD_INFIX)).toList();
    }

    /**
     * The plan for one host at {@code now}: {@link Held} when anything could not be read, else a
     * verdict for every base of the pool.
     *
     * @param after how long a base must have been unused before it is deleted; above zero
     */
    static Plan judge(Storage storage, Instant now, Duration after) {
        Objects.requireNonNull(now, "now");
        if (!after.isPositive()) {
            throw new IllegalArgumentException("after must be above zero: " + after);
        }
        Uses uses = new Uses(storage);
        uses.walk();
        if (!uses.holds.isEmpty()) {
            return new Held(uses.holds);
        }
        Map<String, DiskChains.Volume> pool = storage.volumes().getOrDefault(storage.pool(), Map.of());
        Map<String, Parts> bases = new TreeMap<>();
        for (String name : pool.keySet()) {
            Matcher m = NAME.matcher(name);
            if (!m.matches()) {
                continue;
            }
            Parts parts = bases.computeIfAbsent(m.group(1), b -> new Parts());
            if (m.group(2) != null) {
                parts.marker = true;
            } else if (m.group(3) != null) {
                parts.records.add(name);
                since(m.group(3)).ifPresent(t -> parts.since = parts.since == null || t.isAfter(parts.since)
                        ? t : parts.since);
            }
        }
        List<Judgement> out = new ArrayList<>();
        bases.forEach((base, parts) -> {
            DiskChains.Volume volume = pool.get(base);
            Verdict verdict = verdict(volume == null ? null : volume.path(), parts, uses.used, now, after);
            out.add(new Judgement(base, verdict, verdict == Verdict.IN_USE ? null : parts.since, parts.records));
        });
        return new Judged(out);
    }

    private static Verdict verdict(String path, Parts parts, Set<String> used, Instant now, Duration after) {
        if (path == null) {
            return Verdict.LEFTOVER;
        }
        if (used.contains(path)) {
            return Verdict.IN_USE;
        }
        if (!parts.marker && parts.records.isEmpty()) {
            return Verdict.INCOMPLETE;
        }
        if (parts.since == null) {
            return Verdict.CLOCK_STARTS;
        }
        return Duration.between(parts.since, now).compareTo(after) < 0 ? Verdict.TOO_YOUNG : Verdict.UNUSED;
    }

    private static Optional<Instant> since(String stamp) {
        try {
            return Optional.of(Instant.from(STAMP.parse(stamp)));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** A base's marker and records, as the pool's names show them. */
    private static final class Parts {
        boolean marker;
        final List<String> records = new ArrayList<>();
        Instant since;
    }

    /** The walk over every chain of a host: the paths in use, and what stopped it. */
    private static final class Uses {
        private final Storage storage;
        private final Map<String, DiskChains.Volume> byPath = new HashMap<>();
        final Set<String> used = new HashSet<>();
        final List<String> holds = new ArrayList<>();

        Uses(Storage storage) {
            this.storage = storage;
            storage.volumes().values().forEach(pool -> pool.values().forEach(v -> byPath.put(v.path(), v)));
            holds.addAll(storage.unreadable());
        }

        void walk() {
            Map<String, List<DiskChains.Volume>> sorted = new TreeMap<>();
            storage.volumes().forEach((pool, volumes) -> sorted.put(pool, List.copyOf(new TreeMap<>(volumes).values())));
            sorted.forEach((pool, volumes) -> volumes.forEach(v -> follow(v.backing(),
                    "volume " + v.name() + " of pool " + pool)));
            for (DomainDisks domain : storage.domains()) {
                if (domain.unreadable() != null) {
                    holds.add("domain " + domain.name() + " cannot be read: " + domain.unreadable());
                    continue;
                }
                for (DiskChains.Disk disk : domain.disks()) {
                    disk(domain.name(), disk);
                }
            }
        }

        private void disk(String domain, DiskChains.Disk disk) {
            String who = "domain " + domain + ", disk " + disk.target();
            DiskChains.Layer top = switch (disk.source()) {
                case DiskChains.File f -> new DiskChains.Layer(f.path(), disk.format());
                case DiskChains.Empty e -> null;
                case DiskChains.Elsewhere e -> {
                    if (DiskChains.mayHaveBacking(disk.format())) {
                        holds.add(who + ": a " + e.type() + " disk in format " + disk.format()
                                + ", whose backing file cannot be read");
                    }
                    yield null;
                }
                case DiskChains.PoolVolume v -> {
                    Map<String, DiskChains.Volume> pool = storage.volumes().get(v.pool());
                    if (pool == null) {
                        holds.add(who + ": its volume " + v.volume() + " is in pool " + v.pool()
                                + ", which is not active");
                        yield null;
                    }
                    DiskChains.Volume volume = pool.get(v.volume());
                    yield volume == null ? null : new DiskChains.Layer(volume.path(), disk.format()); // absent: opens nothing
                }
            };
            if (top == null) {
                return;
            }
            used.add(top.path());
            DiskChains.Layer last = top;
            for (DiskChains.Layer layer : disk.below()) {
                if (layer.path() != null) {
                    used.add(layer.path());
                }
                last = layer;
            }
            if (!disk.ends()) {
                follow(last, who);
            }
        }

        /** Marks {@code layer} and everything below it used; holds the host where a link cannot be followed. */
        private void follow(DiskChains.Layer layer, String who) {
            Set<String> seen = new HashSet<>();
            for (DiskChains.Layer at = layer; at != null; ) {
                if (at.path() == null) {
                    if (DiskChains.mayHaveBacking(at.format())) {
                        holds.add(who + ": a file without a local path in format " + at.format()
                                + ", whose backing file cannot be read");
                    }
                    return;
                }
                used.add(at.path());
                DiskChains.Volume volume = byPath.get(at.path());
                if (volume == null) {
                    if (DiskChains.mayHaveBacking(at.format())) {
                        holds.add(who + ": " + at.path() + " (format " + at.format() + ") is not a volume of an "
                                + "active storage pool, so what it is backed by cannot be read");
                    }
                    return;
                }
                if (!seen.add(at.path())) {
                    return; // a loop; every file on it is marked already
                }
                at = volume.backing();
            }
        }
    }
}
