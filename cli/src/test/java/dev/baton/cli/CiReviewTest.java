package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pull or merge request {@code baton run} takes from a CI's environment (docs/pull-requests.md). */
class CiReviewTest {
    @Test
    void gitHubActionsOnAPullRequestEventNamesThePullRequest() {
        assertThat(CiReview.githubPr(Map.of("GITHUB_EVENT_NAME", "pull_request", "GITHUB_REF", "refs/pull/42/merge")))
                .isEqualTo(42);
        assertThat(CiReview.githubPr(
                        Map.of("GITHUB_EVENT_NAME", "pull_request_target", "GITHUB_REF", "refs/pull/7/head")))
                .isEqualTo(7);
    }

    @Test
    void aPushOrAnOddRefNamesNone() {
        assertThat(CiReview.githubPr(Map.of("GITHUB_EVENT_NAME", "push", "GITHUB_REF", "refs/pull/42/merge")))
                .isNull();
        assertThat(CiReview.githubPr(Map.of("GITHUB_EVENT_NAME", "pull_request", "GITHUB_REF", "refs/heads/main")))
                .isNull();
        assertThat(CiReview.githubPr(Map.of())).isNull();
    }

    @Test
    void gitLabMergeRequestPipelinesNameTheIid() {
        assertThat(CiReview.gitlabMr(Map.of("CI_MERGE_REQUEST_IID", "12"))).isEqualTo(12);
        assertThat(CiReview.gitlabMr(Map.of("CI_MERGE_REQUEST_IID", "x"))).isNull();
        assertThat(CiReview.gitlabMr(Map.of("CI_MERGE_REQUEST_IID", "99999999999")))
                .isNull();
        assertThat(CiReview.gitlabMr(Map.of())).isNull();
    }
}
