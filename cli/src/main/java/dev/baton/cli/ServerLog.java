package dev.baton.cli;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Where the log of an in-process server goes. {@code baton up} prints a banner and the sample
 * job's result for a person; the server's and the local runner's INFO lines would interleave with
 * it, so they go to a file instead (unless --verbose). Logback's context is the process's one
 * logging configuration; this changes it in one call and {@link Redirect#close()} puts back what
 * was there (tests rely on that), rather than keeping any state of its own.
 */
final class ServerLog {
    private ServerLog() {}

    /** The root logger's appenders replaced by one that appends to {@code file}; close to undo. */
    static Redirect toFile(Path file, boolean json) {
        try {
            if (file.toAbsolutePath().getParent() != null)
                Files.createDirectories(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new ClientException("cannot create the directory of " + file + ": " + e.getMessage());
        }
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        List<Appender<ILoggingEvent>> before = new ArrayList<>();
        for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) before.add(it.next());

        Encoder<ILoggingEvent> encoder;
        if (json) {
            JsonEncoder e = new JsonEncoder();
            e.setContext(context);
            encoder = e;
        } else {
            PatternLayoutEncoder e = new PatternLayoutEncoder();
            e.setContext(context);
            e.setPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level %logger{24} - %msg%n");
            encoder = e;
        }
        encoder.start();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(context);
        appender.setName("baton-server-log");
        appender.setFile(file.toString());
        appender.setAppend(true);
        appender.setEncoder(encoder);
        appender.start();
        for (Appender<ILoggingEvent> a : before) root.detachAppender(a);
        root.addAppender(appender);
        return new Redirect(root, appender, before);
    }

    /** An applied redirection; closing it restores the appenders it replaced. */
    record Redirect(Logger root, FileAppender<ILoggingEvent> appender, List<Appender<ILoggingEvent>> replaced)
            implements AutoCloseable {
        @Override
        public void close() {
            root.detachAppender(appender);
            appender.stop();
            for (Appender<ILoggingEvent> a : replaced) root.addAppender(a);
        }
    }
}
