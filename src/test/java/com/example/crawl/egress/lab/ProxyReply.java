package com.example.crawl.egress.lab;

/**
 * What curl saw when {@link NetnsLab} sent a request through a proxy.
 *
 * @param status        the final HTTP status: the target's answer relayed by the proxy, or the
 *                      proxy's own (403, 407, 503); 0 when there was none (a refused tunnel)
 * @param connectStatus the proxy's answer to {@code CONNECT} for a tunnel, 0 otherwise
 * @param squidError    Squid's {@code X-Squid-Error} header on the final answer (e.g.
 *                      {@code ERR_ACCESS_DENIED 0}), empty when the answer is not Squid's own
 * @param body          the final answer's body; a lab target's names the address it was reached on
 * @param curlExit      curl's exit code: 0, or e.g. 56 for a refused tunnel, 28 for a timeout
 * @param curlError     curl's error message, empty when it had none
 */
public record ProxyReply(int status, int connectStatus, String squidError, String body, int curlExit, String curlError) {

    /** curl's {@code --write-out} for {@link #fromCurl}: after the body, behind a line no body ends with. */
    static final String WRITE_OUT = "\n--egress-lab--%{http_code} %{http_connect} %header{x-squid-error}";
    private static final String MARK = WRITE_OUT.substring(0, WRITE_OUT.indexOf('%'));
    private static final int SHOWN = 120;

    /** What curl run with {@link #WRITE_OUT} reported; all zeros and curl's words if it wrote nothing. */
    static ProxyReply fromCurl(Netns.Result curl) {
        int mark = curl.out().lastIndexOf(MARK);
        if (mark < 0) {
            return new ProxyReply(0, 0, "", curl.out(), curl.exit(), curl.err().strip());
        }
        String[] codes = curl.out().substring(mark + MARK.length()).split(" ", 3);
        return new ProxyReply(Integer.parseInt(codes[0]), Integer.parseInt(codes[1]), codes[2].strip(),
                curl.out().substring(0, mark), curl.exit(), curl.err().strip());
    }

    /** Without the whole of Squid's error pages, which would bury an assertion message. */
    @Override
    public String toString() {
        String shown = body.length() > SHOWN ? body.substring(0, SHOWN) + "..." : body;
        return "ProxyReply[status=" + status + ", connectStatus=" + connectStatus + ", squidError=" + squidError
                + ", body=" + shown.strip() + ", curlExit=" + curlExit + ", curlError=" + curlError + "]";
    }
}
