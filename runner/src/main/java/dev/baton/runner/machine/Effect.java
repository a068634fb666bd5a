package dev.baton.runner.machine;

import dev.baton.channelclient.machine.InflightRecord;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import java.time.Duration;

/** What the driver must do after the machine handled an input, in order. */
public sealed interface Effect {

    /** Open the channel; answer with {@link Input.ConnectionOpened} or {@link Input.ConnectionClosed}. */
    record Connect() implements Effect {}

    /** Close the channel (shutdown). */
    record Disconnect() implements Effect {}

    /** Send one message on the open channel. */
    record Send(RunnerMessage message) implements Effect {}

    /** After {@code delay}, feed {@link Input.ReconnectDue}. */
    record ScheduleReconnect(Duration delay) implements Effect {}

    /** Pull and unpack (or otherwise provision) the job; the executor answers with prepare inputs. */
    record StartPrepare(ClaimedJob job) implements Effect {}

    /** Start the prepared workload; the executor answers with {@link Input.Started} and {@link Input.Finished}. */
    record StartWorkload(JobUuid job) implements Effect {}

    /** Stop the job: TERM, wait {@code grace}, KILL; the executor answers with {@link Input.Finished}. */
    record StopWorkload(JobUuid job, Duration grace) implements Effect {}

    /** Persist a terminal result before it is sent (atomic write). */
    record WriteOutbox(RunnerMessage.Terminal message, int attempts) implements Effect {}

    /** The server acknowledged the result (or it was dropped): forget it. */
    record DeleteOutbox(JobUuid job) implements Effect {}

    /** Remember that an attempt is in flight, so a restarted agent can report what it knows. */
    record WriteInflight(InflightRecord record) implements Effect {}

    record DeleteInflight(JobUuid job) implements Effect {}

    /** Download, verify and install a new version; answer with an update input. */
    record ApplyUpdate(ServerMessage.Update update) implements Effect {}

    /** Stop the agent with this exit status. */
    record Exit(int status, String reason) implements Effect {}

    /** Run the noise calibration now (the runner holds no job and asks for none); answer with {@code Calibrated}. */
    record Calibrate() implements Effect {}
}
