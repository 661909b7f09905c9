import { Type } from 'typebox';
import { applicationSettings, customAttributes } from './administration.js';
import { branches, protectedBranches } from './branches.js';
import { commitComments, commitStatuses } from './commit-statuses.js';
import { commits } from './commits.js';
import { environments } from './environments.js';
import { events } from './events.js';
import { emails, gpgKeys, sshKeys } from './keys.js';
import { instance } from './meta.js';
import { labels } from './labels.js';
import { groupMilestones, milestones } from './milestones.js';
import { awardEmoji, issueDiscussions, issueNotes, issues } from './issues.js';
import { mergeRequestAwardEmoji, mergeRequestDiscussions, mergeRequestNotes, mergeRequests } from './merge-requests.js';
import { groups as groupRoutes } from './groups.js';
import { groupMembers, projectMembers } from './members.js';
import { namespaces } from './namespaces.js';
import { projects } from './projects.js';
import { repositoryFiles } from './repository-files.js';
import { repository } from './repository.js';
import { releases, tags } from './tags.js';
import { projectRunners, runners } from './runners.js';
import { buildOpenApiDocument } from './openapi.js';
import { defineRoute, type AnyRoute, type NamedRoute, type RouteCall } from './route.js';
import { impersonationTokens, oauth, personalAccessTokens, session } from './tokens.js';
import { users } from './users.js';

const groups = {
  users,
  sshKeys,
  gpgKeys,
  emails,
  customAttributes,
  applicationSettings,
  personalAccessTokens,
  impersonationTokens,
  session,
  oauth,
  namespaces,
  projects,
  projectMembers,
  groups: groupRoutes,
  groupMembers,
  branches,
  protectedBranches,
  repositoryFiles,
  commits,
  tags,
  releases,
  commitStatuses,
  commitComments,
  repository,
  issues,
  issueNotes,
  issueDiscussions,
  awardEmoji,
  mergeRequests,
  mergeRequestNotes,
  mergeRequestDiscussions,
  mergeRequestAwardEmoji,
  labels,
  milestones,
  groupMilestones,
  runners,
  projectRunners,
  environments,
  events,
  instance,
};

/** What each group of the table is: the tags of the OpenAPI document. */
const groupDescriptions: Record<keyof typeof groups, string> = {
  users: 'Users: lists, profiles, avatars, the current user; creating, changing, blocking and deleting users (administrators)',
  sshKeys: 'SSH keys of the current user, and of any user (administrators)',
  gpgKeys: 'GPG keys of the current user, and of any user (administrators)',
  emails: 'Secondary e-mail addresses of the current user, and of any user (administrators)',
  customAttributes: 'Custom attributes of users: key-value pairs that administrators set',
  applicationSettings: 'The instance-wide application settings (administrators)',
  personalAccessTokens: 'Personal access tokens: created for a user by an administrator; listed and revoked by their owner',
  impersonationTokens: 'Impersonation tokens: tokens that administrators create to act as a user',
  session: 'Signing in with a password for a private token',
  oauth: 'OAuth 2 access tokens (password and refresh token grants)',
  namespaces: "Namespaces: each user's own, and groups'",
  projects:
    'Projects: created with an empty repository, read by whoever may see them, shared with groups, moved and deleted by their owners',
  projectMembers: 'Members of projects: who has which access level on a project, until when',
  groups: 'Groups: nested namespaces of projects, whose members’ levels their subgroups and projects inherit',
  groupMembers: 'Members of groups: who has which access level on a group, its subgroups and its projects',
  branches: 'Branches of a project’s repository: made, deleted and protected; the first branch of an empty repository is its default',
  protectedBranches: 'Protected branches by name or pattern, as today’s clients protect them: who may push and merge',
  repositoryFiles: 'Files of a project’s repository: read at any ref, and written in commits on a branch',
  commits: 'Commits of a project’s repository: its history, single commits, and batch commits of several file actions',
  tags: 'Tags of a project’s repository: lightweight or annotated, each with the release notes kept beside it',
  releases: 'Releases of a project’s tags, as today’s clients manage them: a name, notes and a release date per tag',
  commitStatuses: 'Statuses that external systems post for a commit and ref: together they make the pipeline whose status the commit shows',
  commitComments: 'Comments on a commit, or on a line it adds or removes',
  repository: 'A repository read whole: its trees, blobs, archives and comparisons; a commit’s diff, and cherry-picking it onto a branch',
  issues:
    'Issues of projects: listed with filters, opened, changed, closed and reopened, moved and deleted; ' +
    'confidential ones only to those who may read them; time tracking and subscriptions',
  issueNotes: 'Notes on issues: comments, and the system notes that record each change',
  awardEmoji: 'Emoji awarded to issues and to notes on them (`thumbsup` and `thumbsdown` count as votes)',
  mergeRequests:
    'Merge requests: from a branch into another of the same project or, from a fork, of its upstream; their commits and changes, ' +
    'merged by a real merge commit, the issues they close',
  mergeRequestNotes: 'Notes on merge requests: comments, and the system notes that record each change',
  mergeRequestAwardEmoji: 'Emoji awarded to merge requests and to notes on them',
  mergeRequestDiscussions: 'Discussions of merge requests: threads of notes, resolvable by the request’s author and developers',
  issueDiscussions: 'Discussions of issues: threads of notes and notes of their own',
  labels: 'Labels of projects: listed with the counts of the issues that carry them, created, changed, deleted and subscribed to',
  milestones:
    'Milestones of projects: listed, created with the project’s next iid, changed, closed and activated, deleted; the issues that have one',
  groupMilestones: 'Milestones of groups, which the projects of the group and of its subgroups may use: as a project’s',
  runners:
    'CI runners: registered with the instance’s, a group’s or a project’s token; listed (the caller’s own, or all for administrators), ' +
    'read, changed, paused and removed; runners check their token and remove themselves',
  projectRunners: 'The runners of a project: those it may use, listed; specific runners enabled in it and disabled (its maintainers)',
  environments:
    'Deployment environments of projects: named, with a slug made from the name once and an external URL; stopped, renamed and deleted',
  events:
    'Events: what people did (opened, closed and merged work items, comments, pushes, projects made, members joining and leaving), ' +
    'newest first, of what the caller may see',
  instance: 'What the service is: its version and this document',
};

/** The route table: every endpoint, once. HTTP, the in-process API and the OpenAPI document all read it. */
export const routes = {
  ...groups,
  instance: {
    ...instance,
    // Defined beside the table it describes, so that the document's builder needs nothing from the table.
    openapi: defineRoute({
      method: 'GET',
      path: '/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document',
      auth: 'public',
      keepsJsonSuffix: true,
      response: Type.Record(Type.String(), Type.Unknown()),
      run: async (ctx) => openApiDocument(ctx.baseUrl),
    }),
  },
};

export type RouteTable = typeof routes;

/**
 * The in-process API: one typed method per route, grouped as the table groups them. Path parameters come
 * first, in path order, then the input object. Lists resolve to the requested page, an array that also tells
 * the size of the whole list (`total`, `totalPages`, `page`, `perPage`).
 */
// Written out as plain interfaces in src/types.ts (`Api`, scripts/types.mjs): what HostingService and the
// published declarations carry.
export type RouteApi = { [Group in keyof RouteTable]: { [Name in keyof RouteTable[Group]]: RouteCall<RouteTable[Group][Name]> } };

/** Every route with its group and name, in table order. */
export function allRoutes(): NamedRoute[] {
  return Object.entries(routes).flatMap(([group, members]) =>
    // Each route was made by defineRoute, which keeps `run` although the table's type leaves it out.
    Object.entries(members as unknown as Record<string, AnyRoute>).map(([name, route]) => ({ group, name, route })),
  );
}

/**
 * The OpenAPI 3.1 document of the table. Served, its server is the service's base URL; without one
 * (docs/openapi.json) it is `/`, and a client gives its own.
 */
export function openApiDocument(baseUrl?: string): Record<string, unknown> {
  return buildOpenApiDocument(allRoutes(), groupDescriptions, baseUrl);
}
