import { IssueBasic } from '../schemas/issues.js';
import { MergeRequestBasic } from '../schemas/merge-requests.js';
import { CreateMilestoneInput, ListMilestonesQuery, Milestone, UpdateMilestoneInput, WORK_ITEM_BODY_LIMIT } from '../schemas/work-items.js';
import { groupItems, groupRoute, projectItems, projectRoute } from './scoped.js';
import { MilestonesService } from '../services/work-items/milestones.js';
import { defineModule } from './module.js';
import * as workItemsTables from '../db/entities/work-items.js';

/** The original's milestone APIs authenticate every call, reads too. */
const auth = 'user' as const;

const milestone = projectItems({ path: '/milestones', id: 'milestone_id', service: (ctx) => new MilestonesService(ctx) });

export const milestones = {
  list: milestone.list({
    summary: 'A project’s milestones, newest first: by `state` (all by default), `iids`, `title`, `search` in the title and description',
    auth,
    ability: 'read_milestone',
    input: ListMilestonesQuery,
    list: Milestone,
  }),
  get: milestone.get({
    summary: 'One of the project’s milestones, by ID',
    auth,
    ability: 'read_milestone',
    response: Milestone,
  }),
  create: milestone.create({
    summary:
      'Create a milestone with the project’s next iid (developers); 400 `Failed to create milestone {...}` for a title its project ' +
      'or group has',
    auth,
    ability: 'admin_milestone',
    input: CreateMilestoneInput,
    response: Milestone,
    bodyLimit: WORK_ITEM_BODY_LIMIT,
  }),
  update: milestone.update({
    summary: 'Change a milestone (at least one attribute; developers); `state_event` closes or activates it',
    auth,
    ability: 'admin_milestone',
    input: UpdateMilestoneInput,
    response: Milestone,
    bodyLimit: WORK_ITEM_BODY_LIMIT,
  }),
  delete: milestone.delete({
    summary: 'Delete a milestone (developers; later clients): its issues lose it, each with a system note',
    auth,
    ability: 'admin_milestone',
  }),
  issues: projectRoute({
    method: 'GET',
    path: '/milestones/:milestone_id/issues',
    summary: 'The issues that have the milestone and that the caller may read, by their labels’ priority',
    auth,
    ability: 'read_milestone',
    list: IssueBasic,
    run: (ctx, { project, milestone_id }, input) => new MilestonesService(ctx).issues(project, milestone_id, input),
  }),
  mergeRequests: projectRoute({
    method: 'GET',
    path: '/milestones/:milestone_id/merge_requests',
    summary: 'The merge requests that have the milestone and that the caller may read, newest first',
    auth,
    ability: 'read_milestone',
    list: MergeRequestBasic,
    run: (ctx, { project, milestone_id }, input) => new MilestonesService(ctx).mergeRequests(project, milestone_id, input),
  }),
};

const groupMilestone = groupItems({ path: '/milestones', id: 'milestone_id', service: (ctx) => new MilestonesService(ctx) });

export const groupMilestones = {
  list: groupMilestone.list({
    summary: 'A group’s milestones, newest first, with the project list’s filters',
    auth,
    ability: 'read_group',
    input: ListMilestonesQuery,
    list: Milestone,
  }),
  get: groupMilestone.get({
    summary: 'One of the group’s milestones, by ID',
    auth,
    ability: 'read_group',
    response: Milestone,
  }),
  create: groupMilestone.create({
    summary:
      'Create a milestone with the group’s next iid, for the projects of the group ' +
      'and its subgroups (developers of the group); 400 for a title it or its projects have',
    auth,
    ability: 'admin_milestones',
    input: CreateMilestoneInput,
    response: Milestone,
    bodyLimit: WORK_ITEM_BODY_LIMIT,
  }),
  update: groupMilestone.update({
    summary: 'Change a group milestone (at least one attribute; developers of the group); `state_event` closes or activates it',
    auth,
    ability: 'admin_milestones',
    input: UpdateMilestoneInput,
    response: Milestone,
    bodyLimit: WORK_ITEM_BODY_LIMIT,
  }),
  delete: groupMilestone.delete({
    summary: 'Delete a group milestone (developers of the group; later clients): its issues lose it, each with a system note',
    auth,
    ability: 'admin_milestones',
  }),
  issues: groupRoute({
    method: 'GET',
    path: '/milestones/:milestone_id/issues',
    summary: 'The issues of the group’s projects and its subgroups’ that have the milestone and that the caller may read',
    auth,
    ability: 'read_group',
    list: IssueBasic,
    run: (ctx, { group, milestone_id }, input) => new MilestonesService(ctx).issues(group, milestone_id, input),
  }),
  mergeRequests: groupRoute({
    method: 'GET',
    path: '/milestones/:milestone_id/merge_requests',
    summary: 'The merge requests of the group’s projects and its subgroups’ that have the milestone and that the caller may read',
    auth,
    ability: 'read_group',
    list: MergeRequestBasic,
    run: (ctx, { group, milestone_id }, input) => new MilestonesService(ctx).mergeRequests(group, milestone_id, input),
  }),
};

export const milestonesModule = defineModule({
  routes: { milestones, groupMilestones },
  descriptions: {
    milestones:
      'Milestones of projects: listed, created with the project’s next iid, changed, closed and activated, deleted; ' +
      'the issues that have one',
    groupMilestones: 'Milestones of groups, which the projects of the group and of its subgroups may use: as a project’s',
  },
  entities: [workItemsTables.Milestone],
});
