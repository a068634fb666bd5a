# Sourced by ./baton and .ci/run: exports JAVA_HOME pointing at a JDK 21 or newer.
# Order: $JAVA_HOME if it is new enough, then the newest JDK under /usr/lib/jvm.
baton_java_major() {
    "$1/bin/java" -XshowSettings:properties -version 2>&1 |
        sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p'
}

baton_find_jdk() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ] && [ "$(baton_java_major "$JAVA_HOME")" -ge 21 ] 2>/dev/null; then
        return 0
    fi
    best="" best_major=0
    for dir in /usr/lib/jvm/*; do
        [ -x "$dir/bin/javac" ] || continue
        major=$(baton_java_major "$dir")
        if [ -n "$major" ] && [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
            best="$dir" best_major="$major"
        fi
    done
    if [ -z "$best" ]; then
        echo "baton: no JDK 21 or newer found (checked \$JAVA_HOME and /usr/lib/jvm/*). Install one, e.g. 'apt-get install openjdk-21-jdk', or set JAVA_HOME." >&2
        return 1
    fi
    export JAVA_HOME="$best"
}
