package dev.baton.web.http;

/**
 * A part of the server that must act while HTTP still runs, before Jetty stops: the runner
 * channel closes its WebSockets with its own close code (4003) this way, where Jetty's stop
 * would close them with 1001. BatonServer calls it on every module and job-event listener
 * that implements it, then stops Jetty, then closes them.
 */
public interface BeforeHttpStop {
    void beforeHttpStop();
}
