package dev.baton.broker;

import dev.baton.store.LeaseOffers;
import dev.baton.store.Store;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A real store seen through a recorder of its {@link LeaseOffers} calls: each call's method and,
 * for a collection argument, its size. Every call goes to the real store; the test only learns
 * how many transactions the pump asked for and with how many offers each.
 */
final class LeaseOfferCalls {
    /** One call: the method, and the size of its collection argument (-1 when it has none). */
    record Call(String method, int size) {}

    private final List<Call> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Store store;

    LeaseOfferCalls(Store real) {
        LeaseOffers offers = real.leaseOffers();
        LeaseOffers recorded = (LeaseOffers) Proxy.newProxyInstance(
                LeaseOffers.class.getClassLoader(),
                new Class<?>[] {LeaseOffers.class},
                forwarding(offers, (method, args) -> {
                    int size = -1;
                    for (Object a : args == null ? new Object[0] : args)
                        if (a instanceof Collection<?> c) size = c.size();
                    calls.add(new Call(method, size));
                }));
        this.store = (Store) Proxy.newProxyInstance(
                Store.class.getClassLoader(),
                new Class<?>[] {Store.class},
                (proxy, method, args) -> method.getName().equals("leaseOffers") && method.getParameterCount() == 0
                        ? recorded
                        : invoke(real, method, args));
    }

    /** The store to hand the transport. */
    Store store() {
        return store;
    }

    List<Call> of(String method) {
        List<Call> found = new ArrayList<>();
        for (Call c : calls) if (c.method().equals(method)) found.add(c);
        return found;
    }

    private interface Recorder {
        void record(String method, Object[] args);
    }

    private static InvocationHandler forwarding(Object target, Recorder recorder) {
        return (proxy, method, args) -> {
            recorder.record(method.getName(), args);
            return invoke(target, method, args);
        };
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
