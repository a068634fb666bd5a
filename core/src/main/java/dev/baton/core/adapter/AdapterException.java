package dev.baton.core.adapter;

/** The output could not be parsed by the report's adapter; the message says where and why. */
public final class AdapterException extends RuntimeException {
    public AdapterException(String message) {
        super(message);
    }
}
