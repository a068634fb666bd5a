package dev.baton.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.status.NopStatusListener;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Baton's logging, set up in code rather than by a {@code logback.xml}: Logback reads an XML file
 * with its Joran configurator and the JDK's XML parser, about 400 classes (2.5 MiB of metaspace)
 * that every JVM kept for its life, the runner agent at rest included (issue 45, decision 0068).
 * Registered as a service ({@code META-INF/services/ch.qos.logback.classic.spi.Configurator}),
 * which Logback asks before it looks for files.
 *
 * <p>What the XML said: console on standard error, {@code HH:mm:ss.SSS LEVEL logger - message} or,
 * with {@code BATON_LOG_FORMAT=json}, one JSON object per line; Baton's loggers
 * ({@code dev.baton}) at {@code BATON_LOG_LEVEL} (default {@code INFO}), everything else at
 * {@code WARN}; no Logback status messages. An explicit {@code -Dlogback.configurationFile} or a
 * {@code logback-test.xml} on the class path still wins: then this configurator steps aside.
 */
public final class ConsoleLogConfigurator extends ContextAwareBase implements Configurator {
    private final UnaryOperator<String> settings;
    private final Predicate<String> onClassPath;

    /** Settings from system properties, then the environment (as Logback's {@code ${...}} did). */
    public ConsoleLogConfigurator() {
        this(
                name -> {
                    String property = System.getProperty(name);
                    return property != null ? property : System.getenv(name);
                },
                resource -> ConsoleLogConfigurator.class.getClassLoader().getResource(resource) != null);
    }

    ConsoleLogConfigurator(UnaryOperator<String> settings, Predicate<String> onClassPath) {
        this.settings = settings;
        this.onClassPath = onClassPath;
    }

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (settings.apply("logback.configurationFile") != null || onClassPath.test("logback-test.xml"))
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        // A status listener, even one that drops everything, keeps Logback from printing its own
        // warnings on the console (the XML's NopStatusListener).
        context.getStatusManager().add(new NopStatusListener());
        Encoder<ILoggingEvent> encoder;
        if ("json".equals(settings.apply("BATON_LOG_FORMAT"))) {
            encoder = new JsonEncoder();
        } else {
            PatternLayoutEncoder pattern = new PatternLayoutEncoder();
            pattern.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%n");
            encoder = pattern;
        }
        encoder.setContext(context);
        encoder.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("console");
        console.setTarget("System.err");
        console.setEncoder(encoder);
        console.start();
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(console);
        String level = settings.apply("BATON_LOG_LEVEL");
        context.getLogger("dev.baton").setLevel(Level.toLevel(level == null ? "INFO" : level, Level.INFO));
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
