#!/usr/bin/env bash
# Crawl URLs through proxies leased from egress-proxies-operator, with curl and jq:
#   DISCOVERY=http://127.0.0.1:8090 DISCOVERY_TOKEN=... ./crawl.sh URL...
# Per URL: lease a proxy for its host, fetch, report what the site did (429 rate_limited with its
# Retry-After, 403 or a page containing $EGRESS_BLOCK_MARKER banned, no answer through the proxy
# failed), release; retry with a new lease
# after a bad answer, and wait out a 409 or 503 from discovery for its Retry-After (at most 5 s: a
# release frees a proxy sooner than the expiry it counts with).
set -euo pipefail
api() { curl -s -H "Authorization: Bearer $DISCOVERY_TOKEN" -H "Content-Type: application/json" "$@"; }
for url in "$@"; do
  fetched=no
  host=$(printf '%s' "$url" | sed -E 's#^[a-z]+://([^/:]+).*#\1#')
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    lease=$(api -D /tmp/crawl-lease-head.$$ -d "{\"target\":\"$host\",\"ttlSeconds\":120}" "$DISCOVERY/v1/leases")
    id=$(jq -r '.leaseId // empty' <<<"$lease")
    if [[ -z $id ]]; then   # 409 or 503: wait as told
      wait=$(sed -n 's/^Retry-After: *\([0-9]*\).*/\1/Ip' /tmp/crawl-lease-head.$$ | tr -d '\r' | grep . || echo 1)
      sleep $((wait < 5 ? wait : 5))
      continue
    fi
    code=$(curl -s -o /tmp/crawl-page.$$ -D /tmp/crawl-head.$$ -w '%{http_code}' -x "$(jq -r .proxy.url <<<"$lease")" "$url" || true)
    case $code in
      2??|3??) if [[ -n ${EGRESS_BLOCK_MARKER:-} ]] && grep -qF -- "$EGRESS_BLOCK_MARKER" /tmp/crawl-page.$$; then
                 report='{"result":"banned"}'
               else
                 report='{"result":"ok"}'
               fi ;;
      429) report="{\"result\":\"rate_limited\",\"retryAfterSeconds\":$(sed -n 's/^Retry-After: *\([0-9]*\).*/\1/Ip' /tmp/crawl-head.$$ | tr -d '\r' | grep . || echo 1)}" ;;
      403) report='{"result":"banned"}' ;;
      *) report='{"result":"failed"}' ;;
    esac
    api -o /dev/null -d "$report" "$DISCOVERY/v1/leases/$id/report"
    api -o /dev/null -X DELETE "$DISCOVERY/v1/leases/$id"
    if [[ $report == '{"result":"ok"}' ]]; then cat /tmp/crawl-page.$$; fetched=yes; break; fi
  done
  [[ $fetched == yes ]] || { echo "$url: no answer after 10 leases" >&2; exit 1; }
done
rm -f /tmp/crawl-lease-head.$$ /tmp/crawl-head.$$ /tmp/crawl-page.$$
