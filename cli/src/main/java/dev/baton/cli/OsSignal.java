package dev.baton.cli;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;

/**
 * An operating-system signal handled by the JVM, through {@code sun.misc.Signal}: the only way Java
 * can catch TERM, INT, TSTP or CONT. It is reached by reflection because javac's warning that it is
 * internal API cannot be suppressed, and the build treats every warning as an error
 * (docs/decisions/0043-formatter-and-lint.md). Limits: nothing catches SIGKILL or SIGSTOP, and a
 * JVM started with {@code -Xrs} refuses TERM and INT handlers.
 */
public final class OsSignal {
    private final Object signal;
    private final Object previous;

    private OsSignal(Object signal, Object previous) {
        this.signal = signal;
        this.previous = previous;
    }

    /**
     * Runs {@code action} on each delivery of signal {@code name} ("TERM", "INT"…) instead of the
     * JVM's own handling.
     *
     * @throws IllegalArgumentException when the signal is unknown or cannot be handled here
     */
    public static OsSignal handle(String name, Runnable action) {
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Object signal = signalClass.getConstructor(String.class).newInstance(name);
            Object handler = Proxy.newProxyInstance(
                    OsSignal.class.getClassLoader(), new Class<?>[] {handlerClass}, onSignal(action));
            Object previous =
                    signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
            return new OsSignal(signal, previous);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalArgumentException refused) throw refused;
            throw new IllegalStateException("SIG" + name + ": " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("this JVM has no sun.misc.Signal: " + e, e);
        }
    }

    /** The same, or empty where the JVM refuses the signal (as under {@code -Xrs}). */
    public static Optional<OsSignal> tryHandle(String name, Runnable action) {
        try {
            return Optional.of(handle(name, action));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Puts back the handler this one replaced. */
    public void restore() {
        try {
            Class<?> signalClass = signal.getClass();
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, previous);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not restore the handler of " + signal + ": " + e, e);
        }
    }

    private static InvocationHandler onSignal(Runnable action) {
        return (Object proxy, Method method, Object[] args) -> switch (method.getName()) {
            case "handle" -> {
                action.run();
                yield null;
            }
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            case "toString" -> "OsSignal handler";
            default -> throw new UnsupportedOperationException(method.getName());
        };
    }
}
