"""Crawl with Python `requests` through proxies leased from egress-proxies-operator.

    session = EgressSession("http://egress-proxies-discovery.egress-proxies.svc:8090", token)
    page = session.get("https://shop.example/item/1")

Each get leases a proxy for the URL's host (the lease's target), fetches through it, reports what
the site did, and releases the lease: 429 is `rate_limited` (with the site's Retry-After), 403 or a
page carrying block_marker (a text only the site's block page has) is `banned`, a failure to reach
the site through the proxy is `failed`; after any of those it tries
again with a new lease. A 409 or 503 from discovery is waited out for its Retry-After, at most
MAX_WAIT seconds: another crawler's release frees a proxy sooner than the expiry it counts with.

Run as a script: `python3 egress_requests.py URL...` prints each page, with DISCOVERY and
DISCOVERY_TOKEN (and EGRESS_BLOCK_MARKER, if any) in the environment.
"""
import os
import sys
import time
import urllib.parse

import requests

MAX_WAIT = 5
_ERRORS = (requests.exceptions.ProxyError, requests.exceptions.ConnectionError, requests.exceptions.Timeout)


def retry_after(response, default=1):
    """The Retry-After of an answer in seconds (a number; an HTTP date counts as the default)."""
    value = response.headers.get("Retry-After", "")
    return int(value) if value.isdigit() else default


class EgressSession:
    def __init__(self, discovery, token, selector=None, ttl_seconds=120, attempts=10, timeout=30, block_marker=None):
        self.discovery = discovery.rstrip("/")
        self.block_marker = block_marker
        self.selector = selector or {}
        self.ttl_seconds = ttl_seconds
        self.attempts = attempts
        self.timeout = timeout
        self.api = requests.Session()
        self.api.headers["Authorization"] = "Bearer " + token

    def lease(self, target):
        """A lease for target; waits out 409 and 503 for their Retry-After."""
        body = {"target": target, "ttlSeconds": self.ttl_seconds, "selector": self.selector}
        for _ in range(self.attempts):
            answer = self.api.post(self.discovery + "/v1/leases", json=body, timeout=self.timeout)
            if answer.status_code == 201:
                return answer.json()
            if answer.status_code not in (409, 429, 503):
                answer.raise_for_status()
            time.sleep(min(retry_after(answer), MAX_WAIT))
        raise RuntimeError("no proxy could be leased for %s after %d attempts" % (target, self.attempts))

    def report(self, lease, result, **fields):
        fields["result"] = result
        self.api.post(self.discovery + "/v1/leases/%s/report" % lease["leaseId"], json=fields, timeout=self.timeout)

    def release(self, lease):
        self.api.delete(self.discovery + "/v1/leases/%s" % lease["leaseId"], timeout=self.timeout)

    def get(self, url, **kwargs):
        target = urllib.parse.urlsplit(url).hostname
        for _ in range(self.attempts):
            lease = self.lease(target)
            proxy = lease["proxy"]["url"]
            try:
                try:
                    page = requests.get(url, proxies={"http": proxy, "https": proxy}, timeout=self.timeout, **kwargs)
                except _ERRORS:
                    self.report(lease, "failed")
                    continue
                if page.status_code == 429:
                    self.report(lease, "rate_limited", retryAfterSeconds=retry_after(page))
                    continue
                if page.status_code == 403 or self.block_marker and self.block_marker in page.text:
                    self.report(lease, "banned")
                    continue
                if page.status_code == 407 or page.status_code >= 500:
                    self.report(lease, "failed")
                    continue
                self.report(lease, "ok")
                return page
            finally:
                self.release(lease)  # reported first: a report takes the lease's id
        raise RuntimeError("%s: no answer after %d leases" % (url, self.attempts))


if __name__ == "__main__":
    session = EgressSession(os.environ["DISCOVERY"], os.environ["DISCOVERY_TOKEN"],
                            block_marker=os.environ.get("EGRESS_BLOCK_MARKER"))
    for url in sys.argv[1:]:
        sys.stdout.write(session.get(url).text)
