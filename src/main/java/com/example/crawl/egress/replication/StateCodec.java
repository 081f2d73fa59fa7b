package com.example.crawl.egress.replication;

import com.example.crawl.egress.lease.LeaseState;
import com.example.crawl.egress.lease.ReportResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The lease state's bytes: gzip'd JSON, one table of proxy keys and egress addresses that the rows
 * point into by index, every time in epoch milliseconds, every length in milliseconds.
 *
 * <pre>{@code
 * {"proxies": ["crawl/p1", ...],
 *  "leases":    [[digest, proxy, target or null, expiresAt, identity, client], ...],
 *  "cooldowns": [[identity, target ("" = every target), endsAt, length, "rate_limited" or "banned"], ...],
 *  "bans":      [[proxy, target, bannedAt], ...],
 *  "released":  [[digest, reportableUntil], ...],
 *  "suspects":  [[proxy, since], ...],
 *  "lent":      [[identity, site, lentAt], ...],
 *  "sessions":  [[id, proxy, expiresAt], ...]}
 * }</pre>
 *
 * <p>An identity is the proxy's egress address, or the proxy itself while the address is not known.
 * A lease row's fifth element came with egress identities: a row without it (from an earlier build)
 * was lent as the proxy, and a build that does not know it reads the first four. The sixth, the
 * client's name, is there only for a client's lease (the operator's own token's have five): an
 * earlier build reads such a lease as the operator's own and drops the name when it writes the
 * state, so across a downgrade the lease still counts toward its proxy's capacity but no longer
 * toward its client's quota.
 *
 * <p>{@code lent} (for pacing) came after format 2 was first written and is optional: a state without it
 * paces nothing, and a build that does not know it reads the rest and ignores it (losing only the
 * pacing, which lasts seconds), so it needed no new format number. {@code sessions} (sticky
 * sessions, the least recently lent first) came after it likewise: a state without it holds no
 * session, and a build that ignores it loses only the sessions, whose clients' next leases start
 * them afresh.
 *
 * <p>That is format 2. Format 1, written by earlier builds, had cooldown rows of three (no
 * length, no outcome: read as unescalated bans) and no suspects; it is still read, so that a
 * rolling update from such a build keeps its cooldowns. Its format number, term and leader live
 * beside it in the Secret, in plain keys, so that a replica can tell a newer format or a newer
 * term without decoding this.
 */
final class StateCodec {

    /** Largest decoded state accepted: a bomb of a few kilobytes must not fill the heap. */
    private static final int MAX_DECODED_BYTES = 64 * 1024 * 1024;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private StateCodec() {
    }

    static byte[] encode(LeaseState state) {
        Map<String, Integer> index = new HashMap<>();
        ArrayNode proxies = JSON.createArrayNode();
        ObjectNode root = JSON.createObjectNode();
        root.set("proxies", proxies);
        ArrayNode leases = root.putArray("leases");
        for (LeaseState.HeldLease l : state.leases()) {
            ArrayNode row = leases.addArray().add(l.digest()).add(proxy(l.proxyKey(), index, proxies));
            l.target().ifPresentOrElse(row::add, row::addNull);
            row.add(l.expiresAt().toEpochMilli()).add(proxy(l.identity(), index, proxies));
            l.client().ifPresent(row::add);
        }
        ArrayNode cooldowns = root.putArray("cooldowns");
        for (LeaseState.CooldownEnd c : state.cooldowns()) {
            cooldowns.addArray().add(proxy(c.proxyKey(), index, proxies)).add(c.target()).add(c.time().toEpochMilli())
                    .add(c.length().toMillis()).add(c.kind().wireName());
        }
        times(root.putArray("bans"), state.bans(), index, proxies);
        ArrayNode released = root.putArray("released");
        for (LeaseState.Released r : state.released()) {
            released.addArray().add(r.digest()).add(r.until().toEpochMilli());
        }
        ArrayNode suspects = root.putArray("suspects");
        for (LeaseState.Suspect s : state.suspects()) {
            suspects.addArray().add(proxy(s.proxyKey(), index, proxies)).add(s.since().toEpochMilli());
        }
        times(root.putArray("lent"), state.lent(), index, proxies);
        ArrayNode sessions = root.putArray("sessions");
        for (LeaseState.SessionEnd s : state.sessions()) {
            sessions.addArray().add(s.id()).add(proxy(s.proxyKey(), index, proxies)).add(s.expiresAt().toEpochMilli());
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            JSON.writeValue(gzip, root);
        } catch (IOException e) {
            throw new UncheckedIOException("gzip into memory failed", e);
        }
        return bytes.toByteArray();
    }

    /**
     * The state in {@code bytes}, written in {@code format} (1 or 2), in {@code term}.
     *
     * @throws IllegalArgumentException for bytes this codec did not write (a hand edit, a truncation),
     *     or a format it does not read
     */
    static LeaseState decode(byte[] bytes, int format, long term) {
        if (format < 1 || format > 2) {
            throw new IllegalArgumentException("lease state format " + format + " is not one this operator reads (1, 2)");
        }
        JsonNode root;
        try (InputStream in = new BoundedInput(new GZIPInputStream(new ByteArrayInputStream(bytes)))) {
            root = JSON.readTree(in);
        } catch (IOException | JacksonException e) {
            throw new IllegalArgumentException("not a lease state: " + e.getMessage(), e);
        }
        try {
            List<String> proxies = new ArrayList<>();
            root.required("proxies").forEach(p -> proxies.add(p.asString()));
            List<LeaseState.HeldLease> leases = new ArrayList<>();
            for (JsonNode row : root.required("leases")) {
                JsonNode target = row.required(2);
                String proxy = proxies.get(row.required(1).asInt());
                leases.add(new LeaseState.HeldLease(row.required(0).asString(), proxy,
                        row.size() > 4 ? proxies.get(row.required(4).asInt()) : proxy,
                        target.isNull() ? Optional.empty() : Optional.of(target.asString()),
                        Instant.ofEpochMilli(row.required(3).asLong()),
                        row.size() > 5 ? Optional.of(row.required(5).asString()) : Optional.empty()));
            }
            List<LeaseState.Released> released = new ArrayList<>();
            for (JsonNode row : root.required("released")) {
                released.add(new LeaseState.Released(row.required(0).asString(),
                        Instant.ofEpochMilli(row.required(1).asLong())));
            }
            List<LeaseState.CooldownEnd> cooldowns = new ArrayList<>();
            for (JsonNode row : root.required("cooldowns")) {
                String proxy = proxies.get(row.required(0).asInt());
                Instant end = Instant.ofEpochMilli(row.required(2).asLong());
                cooldowns.add(format == 1
                        ? new LeaseState.CooldownEnd(proxy, row.required(1).asString(), end, Duration.ZERO, ReportResult.BANNED)
                        : new LeaseState.CooldownEnd(proxy, row.required(1).asString(), end,
                                Duration.ofMillis(row.required(3).asLong()), outcome(row.required(4).asString())));
            }
            List<LeaseState.Suspect> suspects = new ArrayList<>();
            if (format >= 2) {
                for (JsonNode row : root.required("suspects")) {
                    suspects.add(new LeaseState.Suspect(proxies.get(row.required(0).asInt()),
                            Instant.ofEpochMilli(row.required(1).asLong())));
                }
            }
            JsonNode lent = root.get("lent");
            List<LeaseState.SessionEnd> sessions = new ArrayList<>();
            for (JsonNode row : root.path("sessions")) { // absent: none (MissingNode has no rows)
                sessions.add(new LeaseState.SessionEnd(row.required(0).asString(), proxies.get(row.required(1).asInt()),
                        Instant.ofEpochMilli(row.required(2).asLong())));
            }
            return new LeaseState(term, leases, cooldowns, times(root.required("bans"), proxies), released, suspects,
                    lent == null ? List.of() : times(lent, proxies), sessions);
        } catch (JacksonException | IndexOutOfBoundsException | NullPointerException e) {
            throw new IllegalArgumentException("not a lease state: " + e.getMessage(), e);
        }
    }

    private static ReportResult outcome(String wire) {
        return ReportResult.fromWire(wire).filter(r -> r == ReportResult.BANNED || r == ReportResult.RATE_LIMITED)
                .orElseThrow(() -> new IllegalArgumentException("not a lease state: a cooldown for \"" + wire + "\""));
    }

    private static int proxy(String key, Map<String, Integer> index, ArrayNode proxies) {
        return index.computeIfAbsent(key, k -> {
            proxies.add(k);
            return proxies.size() - 1;
        });
    }

    private static void times(ArrayNode out, List<LeaseState.TargetTime> times, Map<String, Integer> index,
            ArrayNode proxies) {
        for (LeaseState.TargetTime t : times) {
            out.addArray().add(proxy(t.proxyKey(), index, proxies)).add(t.target()).add(t.time().toEpochMilli());
        }
    }

    private static List<LeaseState.TargetTime> times(JsonNode rows, List<String> proxies) {
        List<LeaseState.TargetTime> out = new ArrayList<>();
        for (JsonNode row : rows) {
            out.add(new LeaseState.TargetTime(proxies.get(row.required(0).asInt()), row.required(1).asString(),
                    Instant.ofEpochMilli(row.required(2).asLong())));
        }
        return out;
    }

    /** Refuses to decompress past {@link #MAX_DECODED_BYTES}. */
    private static final class BoundedInput extends FilterInputStream {
        private long left = MAX_DECODED_BYTES;

        BoundedInput(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0 && --left < 0) {
                throw new IOException("decoded state over " + MAX_DECODED_BYTES + " bytes");
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0 && (left -= n) < 0) {
                throw new IOException("decoded state over " + MAX_DECODED_BYTES + " bytes");
            }
            return n;
        }
    }
}
