package dev.baton.dispatch.channel;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.DrainState;
import java.time.Instant;
import java.util.List;

/**
 * What a connected runner does now, as this node sees it: since when its channel is open, the
 * last drain directive it was sent, the jobs it holds (claimed or running) and how many more it
 * offers to take while it waits for work (0: it is not waiting). Only in memory: a runner on
 * another server node is not seen here.
 */
public record RunnerActivity(Instant connected, DrainState drainState, List<JobUuid> jobs, int freeSlots) {}
