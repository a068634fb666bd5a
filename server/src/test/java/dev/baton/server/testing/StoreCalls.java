package dev.baton.server.testing;

import dev.baton.store.Store;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test's view of every call made to a store: {@link #intercept} wraps a {@link Store} and each
 * of its parts ({@code runs()}, {@code nodes()}, …) in a dynamic proxy, so that a test sees a
 * call by its method's name whichever part it is made on. Production wires objects by hand;
 * this is a test-only proxy.
 */
public final class StoreCalls {
    /** One call on the store or one of its parts: {@code target} is the real object it is meant for. */
    @FunctionalInterface
    public interface Handler {
        Object invoke(Object target, Method method, Object[] args) throws Throwable;
    }

    /** What every store {@link #intercept} returns also is: the way back to the real store (see {@code TestClaims}). */
    public interface Wrapped {
        Store real();
    }

    private StoreCalls() {}

    /** Calls {@code method} on {@code target}, rethrowing what it throws. */
    public static Object forward(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The store with every call to it and to its parts (not the part accessors themselves) passed to {@code handler}. */
    public static Store intercept(Store real, Handler handler) {
        Map<String, Object> parts = new ConcurrentHashMap<>();
        return (Store) Proxy.newProxyInstance(
                Store.class.getClassLoader(), new Class<?>[] {Store.class, Wrapped.class}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Wrapped.class) return real;
                    if (isPart(method)) {
                        return parts.computeIfAbsent(method.getName(), name -> {
                            try {
                                Object part = forward(real, method, args);
                                return Proxy.newProxyInstance(
                                        method.getReturnType().getClassLoader(),
                                        new Class<?>[] {method.getReturnType()},
                                        (p, m, a) -> m.getDeclaringClass() == Object.class
                                                ? forward(part, m, a)
                                                : handler.invoke(part, m, a));
                            } catch (Throwable e) {
                                throw new IllegalStateException(e);
                            }
                        });
                    }
                    return method.getDeclaringClass() == Object.class
                            ? forward(real, method, args)
                            : handler.invoke(real, method, args);
                });
    }

    /** A part accessor: no parameters, an interface of the store's package. */
    private static boolean isPart(Method method) {
        Class<?> type = method.getReturnType();
        return method.getParameterCount() == 0 && type.isInterface() && type.getPackage() == Store.class.getPackage();
    }
}
