package dev.baton.dispatch.pools;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** A provider that starts nothing: it records which machines it was asked to start and stop, and fails when told to. */
final class RecordingProvider implements PoolProvider {
    final List<StartRequest> starts = new CopyOnWriteArrayList<>();
    final List<String> stops = new CopyOnWriteArrayList<>();
    /** Machines (Baton's ids) it was asked to find and stop without a provider id. */
    final List<String> unrecorded = new CopyOnWriteArrayList<>();
    /** The message of the next starts' failure; null: they succeed. */
    volatile String failStarts;

    @Override
    public String name() {
        return "recording";
    }

    @Override
    public String start(StartRequest request) throws ProviderException {
        if (failStarts != null) throw new ProviderException(failStarts);
        starts.add(request);
        return "m-" + starts.size();
    }

    @Override
    public void stop(String providerId, Map<String, String> config) {
        stops.add(providerId);
    }

    @Override
    public boolean stopUnrecorded(String machine, Map<String, String> config) {
        unrecorded.add(machine);
        return true;
    }
}
