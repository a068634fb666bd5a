package dev.baton.runner.executor;

import java.util.List;
import java.util.Map;

/**
 * What the guest runs, as the script {@code /.baton/job.sh} on the job's disk. It runs chrooted
 * into the disk under {@code /.baton/busybox sh} with the iteration and the stdout and stderr
 * port devices as arguments and the control port on fd 3. Everything the job supplies is
 * single-quoted, so no word of it is ever interpreted by the shell.
 *
 * <p>{@code runAs} (empty for root) is put before the argv to run the workload as the image's
 * user ({@link GuestUserSwitch}); {@code cwdOwner} ({@code uid:gid}, or null) is given the
 * working directory Baton created, as the runc executor does with its {@code /work}.
 *
 * <p>A paired job (issue 45) also carries the baseline's argv and the iterations that run it (the
 * host knows the order from the seed); the script picks the side by the iteration, and each side
 * sees {@code BATON_PAIR} and {@code BATON_SIDE} as with the other executors.
 *
 * <p>Control records (all lines, then raw bytes for files): {@code exit <code>}, then per
 * requested path in order {@code file <index> <size>} followed by at most the file byte limit of
 * its content, or {@code notregular <index>}; absent files send nothing.
 */
record GuestJob(
        List<String> argv,
        Map<String, String> env,
        String cwd,
        List<String> filePaths,
        List<String> runAs,
        String cwdOwner,
        List<String> baselineArgv,
        List<Integer> baselineIterations) {

    /** A job that is not paired. */
    GuestJob(
            List<String> argv,
            Map<String, String> env,
            String cwd,
            List<String> filePaths,
            List<String> runAs,
            String cwdOwner) {
        this(argv, env, cwd, filePaths, runAs, cwdOwner, null, List.of());
    }

    String script(int fileByteLimit) {
        StringBuilder s = new StringBuilder();
        s.append("B=/.baton/busybox\n");
        s.append("it=$1; out=$2; err=$3\n");
        s.append("$B mkdir -p ")
                .append(quote(cwd))
                .append(" && cd ")
                .append(quote(cwd))
                .append(" || exit 1\n");
        if (cwdOwner != null) s.append("$B chown ").append(quote(cwdOwner)).append(" . || exit 1\n");
        if (baselineArgv == null) {
            run(s, "", argv);
        } else {
            s.append("pair=$(( (it - 1) / 2 ))\n");
            s.append("case \" ");
            for (int i : baselineIterations) s.append(i).append(' ');
            s.append("\" in\n");
            s.append("  *\" $it \"*) ");
            run(s, " \"BATON_PAIR=$pair\" BATON_SIDE=baseline", baselineArgv);
            s.append("  ;;\n  *) ");
            run(s, " \"BATON_PAIR=$pair\" BATON_SIDE=candidate", argv);
            s.append("  ;;\nesac\n");
        }
        s.append("echo \"exit $?\" >&3\n");
        s.append("collect() {\n");
        s.append("  if [ -f \"$2\" ]; then echo \"file $1 $($B wc -c < \"$2\")\" >&3; $B head -c ")
                .append(fileByteLimit)
                .append(" \"$2\" >&3\n");
        s.append("  elif [ -e \"$2\" ]; then echo \"notregular $1\" >&3; fi\n");
        s.append("}\n");
        for (int i = 0; i < filePaths.size(); i++) {
            String p = filePaths.get(i);
            if (p == null || p.isEmpty() || p.indexOf('\0') >= 0 || FileCollector.hasParentSegment(p))
                continue; // refused on the host
            s.append("collect ").append(i).append(' ').append(quote(p)).append('\n');
        }
        s.append("$B sync\n");
        return s.toString();
    }

    private void run(StringBuilder s, String sideEnv, List<String> command) {
        s.append("$B env -i");
        env.forEach((k, v) -> s.append(' ').append(quote(k + "=" + v)));
        s.append(" \"BATON_ITERATION=$it\"").append(sideEnv);
        for (String a : runAs) s.append(' ').append(quote(a));
        for (String a : command) s.append(' ').append(quote(a));
        s.append(" </dev/null 2>\"$err\" >\"$out\"\n");
    }

    static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
