package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.core.ConsoleAppender;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsoleLogConfiguratorTest {
    @Test
    void logsBatonAtInfoAndTheRestAtWarnAsTextOnStandardError() {
        LoggerContext context = configured(Map.of());

        assertThat(context.getLogger("dev.baton.runner").getEffectiveLevel()).isEqualTo(Level.INFO);
        assertThat(context.getLogger("org.eclipse.jetty").getEffectiveLevel()).isEqualTo(Level.WARN);
        ConsoleAppender<?> console = console(context);
        assertThat(console.getTarget()).isEqualTo("System.err");
        assertThat(console.getEncoder()).isInstanceOf(PatternLayoutEncoder.class);
        assertThat(((PatternLayoutEncoder) console.getEncoder()).getPattern())
                .isEqualTo("%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%n");
        assertThat(context.getStatusManager().getCopyOfStatusListenerList()).isNotEmpty();
    }

    @Test
    void takesTheLevelAndTheJsonFormatFromTheSettings() {
        LoggerContext context = configured(Map.of("BATON_LOG_LEVEL", "DEBUG", "BATON_LOG_FORMAT", "json"));

        assertThat(context.getLogger("dev.baton.runner").getEffectiveLevel()).isEqualTo(Level.DEBUG);
        assertThat(console(context).getEncoder()).isInstanceOf(JsonEncoder.class);
    }

    @Test
    void stepsAsideForAnExplicitConfigurationFile() {
        LoggerContext context = new LoggerContext();
        ConsoleLogConfigurator configurator = new ConsoleLogConfigurator(
                Map.of("logback.configurationFile", "/etc/baton/logback.xml")::get, r -> false);
        configurator.setContext(context);

        assertThat(configurator.configure(context)).isEqualTo(ExecutionStatus.INVOKE_NEXT_IF_ANY);
        assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
                        .iteratorForAppenders()
                        .hasNext())
                .isFalse();
    }

    @Test
    void stepsAsideForATestConfigurationOnTheClassPath() {
        LoggerContext context = new LoggerContext();
        ConsoleLogConfigurator configurator =
                new ConsoleLogConfigurator(Map.<String, String>of()::get, "logback-test.xml"::equals);
        configurator.setContext(context);

        assertThat(configurator.configure(context)).isEqualTo(ExecutionStatus.INVOKE_NEXT_IF_ANY);
    }

    private static LoggerContext configured(Map<String, String> settings) {
        LoggerContext context = new LoggerContext();
        ConsoleLogConfigurator configurator = new ConsoleLogConfigurator(settings::get, r -> false);
        configurator.setContext(context);
        assertThat(configurator.configure(context)).isEqualTo(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
        return context;
    }

    private static ConsoleAppender<?> console(LoggerContext context) {
        return (ConsoleAppender<?>)
                context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("console");
    }
}
