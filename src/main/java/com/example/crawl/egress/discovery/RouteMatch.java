package com.example.crawl.egress.discovery;

/** What {@link Route#match} found for a method and path. */
sealed interface RouteMatch {

    /** The path and the method name a route. */
    record Found(Route route) implements RouteMatch { }

    /** The path names {@code route} but the method is another: 405 with {@code Allow}. */
    record WrongMethod(Route route) implements RouteMatch { }

    /** No route has this path: 404. */
    record NotFound() implements RouteMatch { }
}
