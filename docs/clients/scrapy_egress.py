"""A Scrapy downloader middleware that sends each request through a proxy leased from
egress-proxies-operator for the request's host, and tells the operator what the site did.

    DOWNLOADER_MIDDLEWARES = {"scrapy_egress.EgressProxyMiddleware": 700}  # before HttpProxyMiddleware (750)
    EGRESS_DISCOVERY = "http://egress-proxies-discovery.egress-proxies.svc:8090"
    EGRESS_TOKEN = "..."

A 429 is reported `rate_limited` with the site's Retry-After, a 403 or a page that carries
EGRESS_BLOCK_MARKER (a text only the site's block page has) `banned`, a proxy error or a
failed connection `failed`; the lease is then released and the request retried with a new one,
at most EGRESS_ATTEMPTS times. Anything else is reported `ok` and passed on. Discovery's 409 and
503 are waited out for their Retry-After, at most 5 seconds (another crawler's release frees a
proxy sooner than the expiry it counts with). Discovery is called synchronously: a few milliseconds
per request on the cluster's network, which suits crawls of moderate concurrency.
"""
import json
import time
import urllib.error
import urllib.parse
import urllib.request

from scrapy.exceptions import IgnoreRequest

_LEASE = "egress_lease"
_ATTEMPTS = "egress_attempts"


class EgressProxyMiddleware:
    def __init__(self, discovery, token, ttl_seconds=120, attempts=10, block_marker=None):
        self.discovery = discovery.rstrip("/")
        self.block_marker = block_marker.encode() if block_marker else None
        self.token = token
        self.ttl_seconds = ttl_seconds
        self.attempts = attempts

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        return cls(s.get("EGRESS_DISCOVERY"), s.get("EGRESS_TOKEN"), s.getint("EGRESS_TTL_SECONDS", 120),
                   s.getint("EGRESS_ATTEMPTS", 10), s.get("EGRESS_BLOCK_MARKER"))

    def _call(self, method, path, body=None):
        request = urllib.request.Request(self.discovery + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": "Bearer " + self.token,
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def _lease(self, target):
        for _ in range(self.attempts):
            status, headers, body = self._call("POST", "/v1/leases", {"target": target, "ttlSeconds": self.ttl_seconds})
            if status == 201:
                return json.loads(body)
            if status not in (409, 429, 503):
                raise IgnoreRequest("discovery answered %d: %s" % (status, body[:200]))
            time.sleep(min(int(headers.get("Retry-After", "1")), 5))
        raise IgnoreRequest("no proxy could be leased for %s" % target)

    def _end(self, lease, result, **fields):
        fields["result"] = result
        self._call("POST", "/v1/leases/%s/report" % lease["leaseId"], fields)  # report first, then release
        self._call("DELETE", "/v1/leases/%s" % lease["leaseId"])

    def _again(self, request, spider):
        attempts = request.meta.get(_ATTEMPTS, 0) + 1
        if attempts >= self.attempts:
            raise IgnoreRequest("%s: no good answer after %d leases" % (request.url, attempts))
        spider.logger.debug("retrying %s with another lease", request.url)
        meta = dict(request.meta, **{_ATTEMPTS: attempts})
        meta.pop(_LEASE, None)
        meta.pop("proxy", None)
        retry = request.replace(meta=meta, dont_filter=True)
        retry.headers.pop(b"Proxy-Authorization", None)
        return retry

    def process_request(self, request, spider):
        lease = self._lease(urllib.parse.urlsplit(request.url).hostname)
        request.meta[_LEASE] = lease
        request.meta["proxy"] = lease["proxy"]["url"]  # HttpProxyMiddleware turns its userinfo into Proxy-Authorization

    def process_response(self, request, response, spider):
        lease = request.meta.get(_LEASE)
        if lease is None:
            return response
        if response.status == 429:
            retry_after = response.headers.get(b"Retry-After", b"1").decode()
            self._end(lease, "rate_limited", retryAfterSeconds=int(retry_after) if retry_after.isdigit() else 1)
            return self._again(request, spider)
        if response.status == 403 or self.block_marker and self.block_marker in response.body:
            self._end(lease, "banned")
            return self._again(request, spider)
        if response.status == 407 or response.status >= 500:
            self._end(lease, "failed")
            return self._again(request, spider)
        self._end(lease, "ok")
        return response

    def process_exception(self, request, exception, spider):
        lease = request.meta.get(_LEASE)
        if lease is None:
            return None
        self._end(lease, "failed")
        return self._again(request, spider)
