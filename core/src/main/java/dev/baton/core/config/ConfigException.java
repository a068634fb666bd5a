package dev.baton.core.config;

/** A setting that cannot be used, with where it came from (flag, env var, file) in the message. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}
