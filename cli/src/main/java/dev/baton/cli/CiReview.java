package dev.baton.cli;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pull or merge request a CI job runs for, from the CI's own environment, for
 * {@code baton run} when neither {@code --github-pr} nor {@code --gitlab-mr} is given
 * (docs/pull-requests.md): GitHub Actions on a {@code pull_request} or
 * {@code pull_request_target} event ({@code GITHUB_REF} {@code refs/pull/N/merge}); GitLab CI in a
 * merge request pipeline ({@code CI_MERGE_REQUEST_IID}).
 */
final class CiReview {
    private static final Pattern PULL_REF = Pattern.compile("refs/pull/([1-9][0-9]{0,9})/(merge|head)");
    private static final Pattern NUMBER = Pattern.compile("[1-9][0-9]{0,9}");

    private CiReview() {}

    static Integer githubPr(Map<String, String> env) {
        String event = env.get("GITHUB_EVENT_NAME");
        if (!"pull_request".equals(event) && !"pull_request_target".equals(event)) return null;
        Matcher m = PULL_REF.matcher(env.getOrDefault("GITHUB_REF", ""));
        return m.matches() ? number(m.group(1)) : null;
    }

    static Integer gitlabMr(Map<String, String> env) {
        String iid = env.getOrDefault("CI_MERGE_REQUEST_IID", "").strip();
        return NUMBER.matcher(iid).matches() ? number(iid) : null;
    }

    private static Integer number(String digits) {
        long n = Long.parseLong(digits);
        return n > Integer.MAX_VALUE ? null : (int) n;
    }
}
