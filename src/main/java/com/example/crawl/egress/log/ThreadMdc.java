package com.example.crawl.egress.log;

import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.helpers.ThreadLocalMapOfStacks;
import org.slf4j.spi.MDCAdapter;

/**
 * The MDC of this process: one map per thread that a new thread does not inherit. SLF4J's
 * {@code BasicMDCAdapter} copies its map into every thread created while it holds values, so a
 * thread started inside a reconcile or a span (an HTTP client's worker, a virtual thread) would
 * go on logging that reconcile's {@code reconcileID} and that span's {@code traceID} long after
 * both ended. Fields belong to the code that set them, on the thread that set them.
 *
 * <p>Thread-safe: every operation touches only the calling thread's state.
 */
final class ThreadMdc implements MDCAdapter {

    private final ThreadLocal<Map<String, String>> maps = new ThreadLocal<>();
    private final ThreadLocalMapOfStacks stacks = new ThreadLocalMapOfStacks();

    @Override
    public void put(String key, String val) {
        if (key == null) {
            throw new IllegalArgumentException("key cannot be null");
        }
        Map<String, String> map = maps.get();
        if (map == null) {
            map = new HashMap<>();
            maps.set(map);
        }
        map.put(key, val);
    }

    @Override
    public String get(String key) {
        Map<String, String> map = maps.get();
        return map == null || key == null ? null : map.get(key);
    }

    @Override
    public void remove(String key) {
        Map<String, String> map = maps.get();
        if (map != null) {
            map.remove(key);
        }
    }

    @Override
    public void clear() {
        maps.remove();
    }

    /** A copy the caller may keep; null when this thread has no fields. */
    @Override
    public Map<String, String> getCopyOfContextMap() {
        Map<String, String> map = maps.get();
        return map == null ? null : new HashMap<>(map);
    }

    @Override
    public void setContextMap(Map<String, String> contextMap) {
        maps.set(contextMap == null ? null : new HashMap<>(contextMap));
    }

    @Override
    public void pushByKey(String key, String value) {
        stacks.pushByKey(key, value);
    }

    @Override
    public String popByKey(String key) {
        return stacks.popByKey(key);
    }

    @Override
    public Deque<String> getCopyOfDequeByKey(String key) {
        return stacks.getCopyOfDequeByKey(key);
    }

    @Override
    public void clearDequeByKey(String key) {
        stacks.clearDequeByKey(key);
    }
}
