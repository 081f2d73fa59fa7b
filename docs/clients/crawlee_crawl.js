// Crawlee (@crawlee/http) through proxies leased from egress-proxies-operator:
//   DISCOVERY=http://127.0.0.1:8090 DISCOVERY_TOKEN=... node crawlee_crawl.js URL...
// The ProxyConfiguration's newUrlFunction leases a proxy for each request's host; a post-navigation
// hook reports a bad status (429 rate_limited with its Retry-After, 403 banned, 407 or 5xx failed)
// and the request handler a page (banned when it carries EGRESS_BLOCK_MARKER, else ok), each then
// releasing the lease; a bad answer throws, so that Crawlee retries the request, with a new lease;
// the error handler reports a request that never got an answer as failed. Discovery's 409 and 503
// are waited out for their Retry-After, at most 5 s (another crawler's release frees a proxy sooner
// than the expiry it counts with).
const { HttpCrawler, ProxyConfiguration, Configuration } = require('@crawlee/http');

const discovery = process.env.DISCOVERY.replace(/\/+$/, '');
const headers = { Authorization: `Bearer ${process.env.DISCOVERY_TOKEN}`, 'Content-Type': 'application/json' };
const leases = new Map(); // request id -> the lease it is crawled with
const blockMarker = process.env.EGRESS_BLOCK_MARKER; // a text only the site's block page has

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function lease(target) {
    for (let attempt = 0; attempt < 10; attempt++) {
        const answer = await fetch(`${discovery}/v1/leases`, {
            method: 'POST', headers, body: JSON.stringify({ target, ttlSeconds: 120 }),
        });
        if (answer.status === 201) return answer.json();
        if (![409, 429, 503].includes(answer.status)) throw new Error(`discovery answered ${answer.status}`);
        await sleep(Math.min(Number(answer.headers.get('retry-after') ?? 1), 5));
    }
    throw new Error(`no proxy could be leased for ${target}`);
}

const release = (held) => fetch(`${discovery}/v1/leases/${held.leaseId}`, { method: 'DELETE', headers });

// Reports first (a report takes the lease's id), then releases.
async function end(requestId, result, fields = {}) {
    const held = leases.get(requestId);
    if (!held) return;
    leases.delete(requestId);
    await fetch(`${discovery}/v1/leases/${held.leaseId}/report`, {
        method: 'POST', headers, body: JSON.stringify({ result, ...fields }),
    });
    await release(held);
}

const proxyConfiguration = new ProxyConfiguration({
    newUrlFunction: async (_sessionId, { request }) => {
        const held = await lease(new URL(request.url).hostname);
        // A lease still held for this request was granted after Crawlee gave the attempt up (its
        // timeout): it carried nothing, so it is given back without a report.
        const stale = leases.get(request.id);
        if (stale) await release(stale);
        leases.set(request.id, held);
        return held.proxy.url;
    },
});

const crawler = new HttpCrawler({
    proxyConfiguration,
    useSessionPool: false, // each request leases its own proxy; the operator keeps the score
    maxRequestRetries: 10,
    maxConcurrency: 2,
    additionalMimeTypes: ['text/plain'],
    postNavigationHooks: [async ({ request, response }) => {
        const status = response.statusCode;
        if (status === 429) {
            const retryAfter = Number(response.headers['retry-after']);
            await end(request.id, 'rate_limited', Number.isInteger(retryAfter) ? { retryAfterSeconds: retryAfter } : {});
        } else if (status === 403) {
            await end(request.id, 'banned');
        } else if (status === 407 || status >= 500) {
            await end(request.id, 'failed');
        } else {
            return; // the handler tells a block page from a page, by its body
        }
        throw new Error(`${status} from ${request.url}; retrying with another lease`);
    }],
    errorHandler: async ({ request }) => end(request.id, 'failed'),
    failedRequestHandler: async ({ request }) => {
        await end(request.id, 'failed');
        process.exitCode = 1;
    },
    requestHandler: async ({ request, body }) => {
        const text = body.toString();
        if (blockMarker && text.includes(blockMarker)) {
            await end(request.id, 'banned');
            throw new Error(`a block page from ${request.url}; retrying with another lease`);
        }
        await end(request.id, 'ok');
        process.stdout.write(text);
    },
}, new Configuration({ persistStorage: false }));

crawler.run(process.argv.slice(2))
    .catch((e) => {
        console.error(e);
        process.exitCode = 1;
    })
    .finally(() => Promise.all([...leases.values()].map(release))); // none is left behind
