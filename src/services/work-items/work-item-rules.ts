import { can } from '../../auth/abilities.js';
import { mergeBase } from '../../git/ancestry.js';
import { BRANCH_PREFIX } from '../../git/repository.js';
import { rule } from '../rules.js';
import { issueRow } from './issue-store.js';
import { mergeCommitsAmong, openCrossProjectMergeRequests, openMergeRequestsInto } from './merge-request-store.js';
import { closingIssueReferencesIn } from './references.js';
import { closeIssue, findIssueInScope } from './work-item-scopes.js';
import { MergeRequestsService } from './merge-requests.js';
import { findProjectInScope } from '../projects/project-store.js';

/** How many issues one commit's message closes at the most. */
const MAX_CLOSED_BY_COMMIT = 100;

/**
 * What issues and merge requests follow, in the transaction of the write that recorded the event (the original's
 * refresh of merge requests when a branch moves, its post-merge step, its processing of pushed commits, its unlinking of
 * forks).
 */
export const workItemRules = [
  /**
   * A branch that now has an open merge request's source head: that request is merged, by whoever moved the branch,
   * without a merge commit (a merge made elsewhere, or pushed).
   */
  rule(['push'], async (ctx, event) => {
    const { after } = event.data;
    if (after === null) return;
    const projectId = event.project_id!;
    const open = await openMergeRequestsInto(ctx.em, projectId, event.data.ref.slice(BRANCH_PREFIX.length));
    if (!open.length) return;
    const project = await findProjectInScope(ctx, projectId);
    if (!project) return;
    const repo = ctx.repositoryOf(project.project);
    for (const request of open) {
      const head = request.head_sha;
      if (!head || (await repo.objectType(head)) !== 'commit' || (await mergeBase(repo, head, after)) !== head) continue;
      await new MergeRequestsService(ctx).markMerged(request, { commit: null, head, start: after, base: head, mergedAt: ctx.now() });
    }
  }),
  /** A request merged into its project's default branch closes the issues it names with a closing pattern. */
  rule(['merge_request.merged'], (ctx, event) => new MergeRequestsService(ctx).closeIssuesOnMerge(event.merge_request_id!)),
  /**
   * Commits that reach the default branch close the open issues their messages name with a closing pattern (`Closes
   * #1`), where the pusher may change them; a request's merge commit closes nothing of its own (the request did).
   */
  rule(['push'], async (ctx, event) => {
    const { after, commits, ref } = event.data;
    if (after === null || !commits.length) return;
    const project = await findProjectInScope(ctx, event.project_id!);
    if (!project) return;
    const repo = ctx.repositoryOf(project.project);
    if (ref !== `${BRANCH_PREFIX}${await repo.headBranch()}`) return;
    const projectPath = `${project.namespace.fullPath}/${project.project.path}`;
    const mergeCommits = await mergeCommitsAmong(ctx.em, project.project.id, commits);
    // Oldest first, as they were made.
    for (const sha of [...commits].reverse()) {
      if (mergeCommits.has(sha)) continue;
      const { message } = await repo.readCommit(sha);
      const references = closingIssueReferencesIn(message, { projectPath, baseUrl: ctx.baseUrl }).slice(0, MAX_CLOSED_BY_COMMIT);
      for (const reference of references) {
        const owner =
          reference.projectPath.toLowerCase() === projectPath.toLowerCase()
            ? project
            : await findProjectInScope(ctx, reference.projectPath);
        const issue = owner && (await findIssueInScope(ctx, owner, reference.iid));
        if (!issue || !can(ctx.caller, 'update_issue', issue)) continue;
        const row = await issueRow(ctx.em, issue.id);
        if (row?.state === 'opened') await closeIssue(ctx, row, `closed via commit ${sha}`);
      }
    }
  }),
  /**
   * A project that leaves its fork network (made less visible, or no longer a fork) closes the open merge requests
   * between it and the projects it is no longer linked with, both ways: its new commits are not to be published there.
   */
  rule(['project.updated'], async (ctx, event) => {
    if (!event.data.changes.includes('forked_from_id')) return;
    for (const request of await openCrossProjectMergeRequests(ctx.em, event.project_id!))
      await new MergeRequestsService(ctx).close(request);
  }),
];
