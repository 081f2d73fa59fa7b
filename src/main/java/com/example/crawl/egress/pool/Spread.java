package com.example.crawl.egress.pool;

import com.example.crawl.egress.pool.PoolPlan.Weighted;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Spreading members over placements by weight. A new member goes where the count after adding it,
 * divided by the weight, is lowest (the placement furthest below its share); a member to remove
 * comes from where the count divided by the weight is highest. Ties go to the placement listed
 * first. Counts are of good members only: a member on its way out holds no share.
 */
final class Spread {

    private Spread() {
    }

    /** The placement of each of {@code n} new members, given the good members there are. */
    static List<String> place(Map<String, Weighted> placements, List<Member> good, int n) {
        Map<String, Integer> counts = counts(good);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String best = null;
            double bestScore = Double.MAX_VALUE;
            for (Map.Entry<String, Weighted> p : placements.entrySet()) {
                double score = (counts.getOrDefault(p.getKey(), 0) + 1) / (double) p.getValue().weight();
                if (score < bestScore) {
                    best = p.getKey();
                    bestScore = score;
                }
            }
            if (best == null) {
                break; // no placement at all: nothing can be made
            }
            counts.merge(best, 1, Integer::sum);
            out.add(best);
        }
        return List.copyOf(out);
    }

    /** The placement among {@code candidates}' whose count, for its weight, is highest. */
    static String fullest(Map<String, Weighted> placements, Map<String, Integer> counts, List<Member> candidates) {
        String best = null;
        double bestScore = -1;
        for (Member m : candidates) {
            Weighted w = placements.get(m.placement());
            // A placement that is gone has no share at all: its members go first.
            double score = w == null ? Double.MAX_VALUE : counts.getOrDefault(m.placement(), 0) / (double) w.weight();
            if (best == null || score > bestScore || (score == bestScore && order(placements, m.placement())
                    < order(placements, best))) {
                best = m.placement();
                bestScore = score;
            }
        }
        return best;
    }

    private static int order(Map<String, Weighted> placements, String id) {
        int i = 0;
        for (String key : placements.keySet()) {
            if (key.equals(id)) {
                return i;
            }
            i++;
        }
        return Integer.MAX_VALUE;
    }

    /** Good members per placement. */
    static Map<String, Integer> counts(List<Member> good) {
        Map<String, Integer> counts = new HashMap<>();
        good.forEach(m -> counts.merge(m.placement(), 1, Integer::sum));
        return counts;
    }
}
