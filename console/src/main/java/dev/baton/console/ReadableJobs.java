package dev.baton.console;

import dev.baton.protocol.id.JobUuid;
import dev.baton.store.Project;
import dev.baton.store.Store;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.Principal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which changed jobs one event stream's principal may hear of: those of a project it may read
 * (any role), as the API's job routes decide. A job never changes project and a project row never
 * changes, so each job's project is read once and kept (a bounded number of them, oldest dropped);
 * the principal's memberships are the caller's to refresh. The admin reads every job and costs
 * no read at all.
 */
final class ReadableJobs {
    static final int REMEMBERED = 4096;

    private final Store store;
    /** The projects of jobs found so far (a job not found is looked up again at its next change). */
    private final Map<JobUuid, Project> projects = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<JobUuid, Project> eldest) {
            return size() > REMEMBERED;
        }
    };

    ReadableJobs(Store store) {
        this.store = store;
    }

    /** Whether {@code principal} may read job {@code job}; an unknown job is not readable (fail closed). */
    boolean mayRead(Principal principal, JobUuid job) {
        if (principal instanceof Principal.Admin) return true;
        Project project = projects.get(job);
        if (project == null) {
            Optional<Project> found =
                    store.runs().findJob(job).flatMap(j -> store.organizations().findProject(j.projectId()));
            if (found.isEmpty()) return false;
            project = found.get();
            projects.put(job, project);
        }
        return AccessControl.roleOn(principal, project).isPresent();
    }
}
