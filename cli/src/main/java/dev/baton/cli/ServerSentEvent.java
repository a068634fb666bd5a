package dev.baton.cli;

/**
 * One Server-Sent Event (the WHATWG event-stream format): its id (null when the event set none),
 * its type ({@code message} by default) and its data lines joined by newlines.
 */
record ServerSentEvent(String id, String event, String data) {

    /** Turns lines into events; one instance per stream. Comments and unknown fields are skipped. */
    static final class Parser {
        private String id;
        private String event;
        private StringBuilder data;

        /** Feeds one line; returns the event a blank line completes, else null. */
        ServerSentEvent line(String line) {
            if (line.isEmpty()) {
                if (data == null && event == null && id == null) return null;
                ServerSentEvent done =
                        new ServerSentEvent(id, event == null ? "message" : event, data == null ? "" : data.toString());
                id = null;
                event = null;
                data = null;
                return done;
            }
            if (line.startsWith(":")) return null;
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) value = value.substring(1);
            switch (field) {
                case "id" -> id = value;
                case "event" -> event = value;
                case "data" -> {
                    if (data == null) data = new StringBuilder(value);
                    else data.append('\n').append(value);
                }
                default -> {
                    /* retry and unknown fields: nothing to do for a CLI */
                }
            }
            return null;
        }
    }
}
