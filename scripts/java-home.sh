# Sourced by ./baton, scripts/test, .ci/run and the distribution's bin/baton (which ships a copy
# as lib/java-home.sh): finds a Java 21 or newer and exports JAVA_HOME.
# Order: $JAVA_HOME if it is new enough, then the newest Java under /usr/lib/jvm. Never the
# `java` on PATH: on Debian 12 that is JDK 17, which cannot build or run Baton.

# The feature version (17, 21, 25…) of the Java in $1, or nothing. Read from its `release` file
# (no JVM start: the launcher runs this on every call); a JVM is asked only when that file is missing.
baton_java_major() {
    local version=""
    if [ -r "$1/release" ]; then
        version=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9.]*\).*/\1/p' "$1/release")
    fi
    if [ -z "$version" ] && [ -x "$1/bin/java" ]; then
        version=$("$1/bin/java" -XshowSettings:properties -version 2>&1 |
            sed -n 's/^ *java.specification.version = \([0-9.]*\).*/\1/p')
    fi
    case "$version" in
        1.*) echo 1 ;; # 1.8 and older
        *) echo "${version%%.*}" ;;
    esac
}

# baton_find_java_home TOOL: exports JAVA_HOME to a Java 21+ that has bin/TOOL (javac to build,
# java to run). Prints a message naming what was checked and returns 1 when there is none.
baton_find_java_home() {
    local tool="$1" dir major best="" best_major=0
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/$tool" ]; then
        major=$(baton_java_major "$JAVA_HOME")
        if [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null; then
            export JAVA_HOME
            return 0
        fi
    fi
    # BATON_JVM_ROOT: another directory of Java installations (tests use it).
    local root="${BATON_JVM_ROOT:-/usr/lib/jvm}"
    for dir in "$root"/*; do
        [ -x "$dir/bin/$tool" ] || continue
        major=$(baton_java_major "$dir")
        if [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null && [ "$major" -gt "$best_major" ]; then
            best="$dir" best_major="$major"
        fi
    done
    if [ -z "$best" ]; then
        local what="Java 21 or newer"
        [ "$tool" = javac ] && what="JDK 21 or newer (with javac)"
        echo "baton: no $what found (checked \$JAVA_HOME${JAVA_HOME:+=$JAVA_HOME} and $root/*; the java on PATH is not used)." \
            "Install one, e.g. 'apt-get install openjdk-21-jdk-headless' (Debian 13, Ubuntu 24.04) or a Temurin 21/25 package" \
            "(Debian 12: https://adoptium.net/installation/linux/), or set JAVA_HOME." >&2
        return 1
    fi
    export JAVA_HOME="$best"
}

# A JDK to build with (scripts/test, ./baton when it must build).
baton_find_jdk() {
    baton_find_java_home javac
}

# A Java to run Baton with (a JRE is enough).
baton_find_java() {
    baton_find_java_home java
}

# The runner agent's JVM options (decisions 0051, 0068, 0073 and 0078); BATON_RUNNER_JAVA_OPTS replaces them.
# TrimNativeHeapInterval is experimental in the 21 updates that have it before JDK-8325496, hence the unlock.
# jdk.internal.httpclient.selectorTimeout: the JDK HTTP client's selector thread, with nothing to do,
# wakes every 30 s instead of every 3 s (it only looks whether the client was dropped; timers and
# I/O still wake it at once; decision 0073).
BATON_RUNNER_DEFAULT_JAVA_OPTS="-XX:+IgnoreUnrecognizedVMOptions -XX:+UseSerialGC -Xms8m -Xmx256m -XX:NewRatio=8 -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 \
-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:ReservedCodeCacheSize=32m -XX:-UsePerfData -Xss512k \
-XX:+UnlockDiagnosticVMOptions -XX:AsyncDeflationInterval=60000 -XX:ServiceThreadCleanupInterval=60000 \
-XX:+UnlockExperimentalVMOptions -XX:TrimNativeHeapInterval=10000 -Djdk.internal.httpclient.selectorTimeout=30000"

# baton_exec JAR ARGS...: runs Baton with $JAVA_HOME (exec: signals reach the JVM directly).
# Short commands, which is every command but the long-running `server`, `up` and `runner`, get
# JVM options for a short life and an application class-data-sharing (AppCDS) archive: together
# they take more than half of a short command's time. The archive is made once per jar and
# JVM by a training run in the background (the first call does not wait for it) and made again
# when the jar or the JVM is newer than it. BATON_CDS=off turns it off; BATON_CACHE_DIR says
# where it goes (default ~/.cache/baton); BATON_JAVA_OPTS adds JVM options.
baton_exec() {
    local jar="$1"
    shift
    local fast=()
    case "${1:-}" in
        server | up | runner) ;;
        *)
            # No 300 ms wait at exit for threads blocked in native code
            # (the HTTP client's selector), which the JVM does by default (flag new in JDK 21:
            # ignored where unknown).
            fast=(-XX:+IgnoreUnrecognizedVMOptions -XX:UserThreadWaitAttemptsAtExit=1)
            # `image push` hashes whole layers, work for the optimising JIT; the rest is short.
            [ "${1:-}" = image ] || fast+=(-XX:TieredStopAtLevel=1)
            local dir="${BATON_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/baton}"
            if [ "${BATON_CDS:-on}" != off ] && { [ -d "$dir" ] || mkdir -p "$dir" 2>/dev/null; } && [ -w "$dir" ]; then
                # One archive per JVM and jar, so two installations or JDKs never replace each other's.
                local key="${JAVA_HOME}@${jar}"
                key="${key//[^A-Za-z0-9.]/_}"
                [ "${#key}" -le 180 ] || key="${key: -180}"
                local archive="$dir/cds-$key.jsa"
                if [ -f "$archive" ] && [ ! "$jar" -nt "$archive" ] && [ ! "$JAVA_HOME/release" -nt "$archive" ]; then
                    # An archive the JVM cannot use (jar or JVM replaced since) is skipped silently.
                    fast+=(-XX:SharedArchiveFile="$archive" -Xlog:cds=off -Xlog:cds+dynamic=off)
                else
                    baton_train_cds "$jar" "$archive"
                fi
            fi
            ;;
    esac
    # The runner agent spends its life idle beside benchmarks: a small serial heap that grows only
    # when a job needs it, its young generation a ninth of it (about 1 MiB at rest, growing with
    # the heap), C1 only, no perf-data file, the JVM's own periodic threads
    # (monitor deflation every 250 ms, service-thread cleanup every second) made to wake seldom,
    # and the C heap's free pages returned to the system every 10 s (malloc_trim).
    # Decisions 0051, 0068 and 0078 and docs/benchmarks/agent-at-rest.md say what each one saves.
    # BATON_RUNNER_JAVA_OPTS replaces the list (empty: the JVM's defaults); BATON_JAVA_OPTS comes
    # after it, so an option there wins (e.g. -Xmx512m for a --max-message-bytes above 32 MiB).
    local agent=()
    if [ "${1:-}" = runner ] && [ "${2:-}" = up ]; then
        # shellcheck disable=SC2206 # a list of options
        agent=(${BATON_RUNNER_JAVA_OPTS-$BATON_RUNNER_DEFAULT_JAVA_OPTS})
        # baton-agent.jar beside baton.jar: the same classes with the runner's jars only as its
        # class path, so the agent does not open (and hold the directories of) the server's
        # hundred jars (decision 0073); an installation without it runs the agent from baton.jar.
        [ ! -f "${jar%/*}/baton-agent.jar" ] || jar="${jar%/*}/baton-agent.jar"
        # The agent's own class-data-sharing archive (decision 0074): about 2 MiB less resident.
        if [ "${BATON_CDS:-on}" != off ]; then
            local archive=()
            mapfile -t archive < <(baton_agent_cds "$jar" "${agent[@]}")
            agent+=("${archive[@]}")
        fi
    fi
    # shellcheck disable=SC2086 # BATON_JAVA_OPTS is a list of options
    exec "$JAVA_HOME/bin/java" "${fast[@]}" "${agent[@]}" ${BATON_JAVA_OPTS:-} -jar "$jar" "$@"
}

# baton_agent_cds JAR OPTIONS...: prints, one a line, the JVM options that make `runner up` use
# the agent's class-data-sharing archive (decision 0074), or nothing. The archive is one per JVM and jar, in
# the same cache directory as the short commands'; it is used only when neither the jar, the jars
# of its lib/ nor the JVM is newer than it. A missing or older one is made first, in the
# foreground (an agent starts seldom and lives long; about 3 s): a training run of the real agent
# against a stub channel on a loopback port (dev.baton.cli.AgentTraining) with the agent's OPTIONS,
# which dumps the classes it loaded at exit, into a temporary file renamed only if the training
# succeeded. An agent that finds another training under way (flock) starts without the archive;
# a failed training leaves none, and the next start tries again. The JVM checks the archive
# itself too (its JVM, its class path's jars): one it cannot use it skips, silently (-Xshare:auto,
# the logs off), and the agent starts without it.
baton_agent_cds() {
    local jar="$1"
    shift
    local dir="${BATON_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/baton}"
    { [ -d "$dir" ] || mkdir -p "$dir" 2>/dev/null; } && [ -w "$dir" ] || return 0
    local key="${JAVA_HOME}@${jar}"
    key="${key//[^A-Za-z0-9.]/_}"
    [ "${#key}" -le 180 ] || key="${key: -180}"
    local archive="$dir/cds-agent-$key.jsa"
    if [ ! -f "$archive" ] || [ "$jar" -nt "$archive" ] || [ "$JAVA_HOME/release" -nt "$archive" ] ||
        [ -n "$(find "${jar%/*}/lib" -name '*.jar' -newer "$archive" -print -quit 2>/dev/null)" ]; then
        local tmp="$archive.$$.tmp" lock=() limit=()
        command -v flock >/dev/null 2>&1 && lock=(flock -n "$archive.lock")
        command -v timeout >/dev/null 2>&1 && limit=(timeout 30)
        if ! "${lock[@]}" "${limit[@]}" "$JAVA_HOME/bin/java" "$@" -XX:ArchiveClassesAtExit="$tmp" \
            -cp "$jar" dev.baton.cli.AgentTraining </dev/null >/dev/null 2>&1 || [ ! -s "$tmp" ]; then
            rm -f "$tmp"
            return 0
        fi
        mv -f "$tmp" "$archive"
    fi
    # One option a line (the caller reads them with mapfile): the directory may hold spaces.
    printf '%s\n' "-XX:SharedArchiveFile=$archive" -Xlog:cds=off -Xlog:cds+dynamic=off
}

# baton_train_cds JAR ARCHIVE: writes ARCHIVE in a detached background process: a run of typical
# short commands in one JVM (dev.baton.cli.StartupTraining) that dumps the classes it loaded at
# exit, written to a temporary file and renamed, one training at a time (flock).
baton_train_cds() {
    local jar="$1" archive="$2"
    local tmp="$archive.$$.tmp"
    local detach=() lock=()
    command -v setsid >/dev/null 2>&1 && detach=(setsid)
    command -v flock >/dev/null 2>&1 && lock=(flock -n "$archive.lock")
    (
        "${detach[@]}" "${lock[@]}" "$JAVA_HOME/bin/java" -XX:ArchiveClassesAtExit="$tmp" -XX:TieredStopAtLevel=1 \
            -cp "$jar" dev.baton.cli.StartupTraining && [ -s "$tmp" ] && mv -f "$tmp" "$archive"
        rm -f "$tmp"
    ) </dev/null >/dev/null 2>&1 &
}
