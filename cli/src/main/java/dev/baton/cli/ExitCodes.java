package dev.baton.cli;

/** The exit statuses of {@code baton} (docs/cli.md lists them; scripts match on them). */
final class ExitCodes {
    private ExitCodes() {}

    /** The command did what was asked; for {@code run --wait}: the job was processed. */
    static final int OK = 0;
    /** The server refused the request, or it could not be made. */
    static final int CLIENT_ERROR = 1;
    /** The command line itself is wrong (unknown option, missing value, bad value). */
    static final int USAGE = 2;
    /** {@code run --wait}: the job failed. */
    static final int JOB_FAILED = 3;
    /** {@code run --wait}: the job was canceled. */
    static final int JOB_CANCELED = 4;
    /** {@code run --wait}: {@code --wait-timeout} passed before the job ended. */
    static final int WAIT_TIMEOUT = 5;
    /** {@code run --wait}: the server stopped answering for longer than {@code --reconnect-for}. */
    static final int LOST_SERVER = 6;
    /**
     * {@code run --wait}: the job ran to the end but its output did not parse (the report's error):
     * a pipeline that needs the numbers must not pass.
     */
    static final int REPORT_ERROR = 7;
    /**
     * {@code run --wait --fail-on-alert} (and a direct run with {@code --fail-on-alert}): the job
     * was processed, but a threshold raised an alert on its report (docs/alerts.md).
     */
    static final int ALERT = 8;
    /** {@code run --wait}: Ctrl-C, and the user chose to detach (the job goes on); 128 + SIGINT as shells expect. */
    static final int DETACHED = 130;
}
