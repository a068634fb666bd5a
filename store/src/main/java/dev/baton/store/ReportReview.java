package dev.baton.store;

/** The pull request (GitHub) and merge request (GitLab) a run named, each null when none (docs/pull-requests.md). */
public record ReportReview(Integer githubPr, Integer gitlabMr) {
    public static final ReportReview NONE = new ReportReview(null, null);
}
