package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Organization;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.Transition;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The counting store's tables against the Store interface, and its counts against a real SQLite store. */
class CountingStoreTest {
    @TempDir
    Path dir;

    /**
     * Every abstract method of Store and of its proxied parts is counted some way, once, and no
     * table names a method they do not have.
     */
    @Test
    void everyStoreMethodIsNamedInExactlyOneTable() throws NoSuchMethodException {
        List<Method> methods = new ArrayList<>();
        for (Method m : Store.class.getMethods()) {
            if (!CountingStore.PARTS.contains(m.getName())) methods.add(m);
        }
        for (String part : CountingStore.PARTS)
            methods.addAll(
                    Arrays.asList(Store.class.getMethod(part).getReturnType().getMethods()));
        Set<String> abstractMethods = methods.stream()
                .filter(m -> Modifier.isAbstract(m.getModifiers()))
                .map(Method::getName)
                .collect(Collectors.toSet());
        Set<String> allMethods = methods.stream().map(Method::getName).collect(Collectors.toSet());
        List<String> named = new ArrayList<>();
        for (Set<String> table :
                List.of(CountingStore.WRITES, CountingStore.READS, CountingStore.CACHED, CountingStore.PASSED))
            named.addAll(table);
        assertThat(named).doesNotHaveDuplicates();
        assertThat(new HashSet<>(named)).containsAll(abstractMethods);
        assertThat(allMethods).containsAll(named);
    }

    @Test
    void writesReadsCachedLookupsClaimsAndHeartbeatRowsAreCounted() {
        AtomicInteger processed = new AtomicInteger();
        CountingStore counting = new CountingStore(StoreFactory.open(null, dir), processed::incrementAndGet);
        try (Store store = counting.store()) {
            Instant now = Instant.parse("2026-11-27T00:00:00Z");
            Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, now);
            Spec spec = store.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, now);
            assertThat(store.organizations().findOrganization(org.id())).isPresent();
            assertThat(store.specs().findSpec(spec.id())).isPresent();
            // A default method runs its body on the part's proxy: the overload it calls is counted, once.
            assertThat(store.transitions()
                            .complete(JobUuid.random(), LeaseId.random(), now)
                            .result())
                    .isEqualTo(Transition.Result.NOT_FOUND);
            assertThat(store.claims().claimEach(List.of(), now, now.plusSeconds(30)))
                    .isEmpty();
            store.runners().recordRunnerHeartbeats(Map.of(1L, now, 2L, now));

            assertThat(counting.writesByMethod())
                    .containsEntry("createOrganization", 1L)
                    .containsEntry("createSpec", 1L)
                    .containsEntry("complete", 1L)
                    .containsEntry("claimEach", 1L)
                    .containsEntry("recordRunnerHeartbeats", 1L);
            assertThat(counting.writes()).isEqualTo(5);
            assertThat(counting.readsByMethod())
                    .containsEntry("findOrganization", 1L)
                    .containsEntry("findSpec (cached)", 1L)
                    .containsEntry(CountingStore.CLAIMS, 1L)
                    .containsEntry(CountingStore.EMPTY_CLAIMS, 1L);
            assertThat(counting.reads()).isEqualTo(1);
            assertThat(counting.cachedLookups()).isEqualTo(1);
            assertThat(counting.heartbeatRows()).isEqualTo(2);
            assertThat(processed).hasValue(0);
        }
    }
}
