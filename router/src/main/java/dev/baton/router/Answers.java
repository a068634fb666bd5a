package dev.baton.router;

import dev.baton.protocol.message.ServerMessage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The answers owed to one connection of a runner behind the router, given in the order of its
 * messages, as a server gives them: an answer the router gives at once (a bare heartbeat's ack)
 * waits behind an earlier message's answer that is still on its way from the server. Pushes
 * (a job, a cancel, a drain) do not wait here; a server sends those whenever they happen, too.
 */
final class Answers {
    /** The place of one message's answer in the connection's order. */
    static final class Slot {
        private final List<ServerMessage> messages = new ArrayList<>(1);
        private boolean given;
        private boolean sent;
    }

    private final Link link;
    private final Deque<Slot> waiting = new ArrayDeque<>();

    Answers(Link link) {
        this.link = link;
    }

    /** Reserves the answer to a message just received. */
    Slot reserve() {
        Slot slot = new Slot();
        waiting.add(slot);
        return slot;
    }

    /** Answers a message at once (behind the answers still owed before it). */
    void answer(ServerMessage message) {
        give(reserve(), message);
    }

    /** Gives the answer for {@code slot}: one message. */
    void give(Slot slot, ServerMessage message) {
        give(slot, List.of(message));
    }

    /**
     * Gives the answer for {@code slot}: everything the server said about the message, in its
     * order (a cancel pushed while the message was on its way, then the message's own answer).
     * What comes for a slot already sent follows it at once.
     */
    void give(Slot slot, List<ServerMessage> messages) {
        if (slot.sent) {
            messages.forEach(link::send);
            return;
        }
        slot.messages.addAll(messages);
        slot.given = true;
        while (!waiting.isEmpty() && waiting.peek().given) {
            Slot first = waiting.poll();
            first.sent = true;
            first.messages.forEach(link::send);
        }
    }

    boolean given(Slot slot) {
        return slot.given;
    }
}
