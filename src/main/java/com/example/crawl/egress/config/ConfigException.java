package com.example.crawl.egress.config;

/**
 * Bad start-up input: a flag, an environment variable or the providers config. The message is one
 * line that names what is wrong and is meant to be printed as is.
 */
public final class ConfigException extends Exception {

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
