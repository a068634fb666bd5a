package dev.baton.web.http;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.store.Job;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.Store;

/** Resolves path parameters and references (UUID or slug) to stored rows, or a 404 with a stable code. */
public final class Lookups {
    private final Store store;

    public Lookups(Store store) {
        this.store = store;
    }

    public Runner runner(String ref) {
        return store.runners()
                .findRunner(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("runner_not_found", "no runner '" + ref + "'"));
    }

    public Spec spec(String ref) {
        return store.specs()
                .findSpec(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("spec_not_found", "no spec '" + ref + "'"));
    }

    public Organization organization(String ref) {
        return store.organizations()
                .findOrganization(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("organization_not_found", "no organization '" + ref + "'"));
    }

    public Project project(String ref) {
        return store.organizations()
                .findProject(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("project_not_found", "no project '" + ref + "'"));
    }

    /** A job of {@code project} by UUID; another project's job is as unknown as a missing one. */
    public Job job(Project project, String ref) {
        JobUuid uuid;
        try {
            uuid = JobUuid.parse(ref);
        } catch (IllegalArgumentException e) {
            throw jobNotFound(ref);
        }
        return store.runs()
                .findJob(uuid)
                .filter(j -> j.projectId() == project.id())
                .orElseThrow(() -> jobNotFound(ref));
    }

    public static ApiException jobNotFound(String ref) {
        return ApiException.notFound("job_not_found", "no job '" + ref + "' in this project");
    }
}
