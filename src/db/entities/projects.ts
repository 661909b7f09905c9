import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, createdAt, day, digest, image, now, refersTo, timestamps } from './columns.js';
import { membership, Namespace, VISIBILITIES } from './namespaces.js';
import { User } from './user.js';

/** Where an imported or forked repository stands (`import_status`); `none` for a project made empty. */
export const IMPORT_STATUSES = ['none', 'scheduled', 'started', 'finished', 'failed'] as const;

/** A project: a repository in a namespace, with its settings. Paths are unique in their namespace, regardless of case. */
export const Project = defineEntity({
  name: 'Project',
  tableName: 'projects',
  indexes: [
    {
      name: 'projects_namespace_path_index',
      expression: 'create unique index "projects_namespace_path_index" on "projects" ("namespace_id", lower("path"))',
    },
    { properties: ['visibility'] },
    { properties: ['createdAt'] },
    { properties: ['lastActivityAt'] },
  ],
  properties: {
    id: p.integer().primary(),
    name: p.string().length(255),
    path: p.string().length(255),
    namespace: belongsTo(Namespace).index(),
    creator: refersTo(User),
    description: p.text().nullable(),
    defaultBranch: p.string().length(255).nullable(),
    visibility: p.enum(VISIBILITIES).default('private'),
    archived: p.boolean().default(false),
    issuesEnabled: p.boolean().default(true),
    mergeRequestsEnabled: p.boolean().default(true),
    jobsEnabled: p.boolean().default(true),
    wikiEnabled: p.boolean().default(true),
    snippetsEnabled: p.boolean().default(true),
    resolveOutdatedDiffDiscussions: p.boolean().default(false),
    containerRegistryEnabled: p.boolean().default(true),
    sharedRunnersEnabled: p.boolean().default(true),
    publicJobs: p.boolean().default(true),
    onlyAllowMergeIfPipelineSucceeds: p.boolean().default(false),
    onlyAllowMergeIfAllDiscussionsAreResolved: p.boolean().default(false),
    lfsEnabled: p.boolean().default(true),
    requestAccessEnabled: p.boolean().default(false),
    printingMergeRequestLinkEnabled: p.boolean().default(true),
    tagList: p.array().default([]),
    ciConfigPath: p.string().length(255).nullable(),
    /** The repository storage (a name of `repository_storages`) the repository lives in. */
    repositoryStorage: p.string().length(255),
    importUrl: p.text().nullable(),
    importStatus: p.enum(IMPORT_STATUSES).default('none'),
    importError: p.text().nullable(),
    forkedFrom: () => refersTo(Project).index(),
    avatarFilename: p.string().length(255).nullable(),
    /** The token runners register with, sealed (src/auth/secret-box.ts): its maintainers see it. */
    runnersTokenSealed: p.text().nullable(),
    /** Its digest, by which a registering runner's token finds the project. */
    runnersTokenDigest: digest().nullable().unique(),
    /** Its open issues, and how many of them are confidential: counted by the issues' trigger (entities/work-items.ts). */
    openIssuesCount: p.integer().default(0),
    openConfidentialIssuesCount: p.integer().default(0),
    /** Branch pushes since the repository's last housekeeping (src/services/repository/housekeeping.ts). */
    pushesSinceGc: p.integer().default(0),
    ...timestamps(),
    lastActivityAt: p.datetime().onCreate(now),
  },
});
export type Project = InferEntity<typeof Project>;

/** A user's membership of one project. */
export const ProjectMember = defineEntity({
  name: 'ProjectMember',
  tableName: 'project_members',
  uniques: [{ properties: ['project', 'user'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    ...membership(),
  },
});
export type ProjectMember = InferEntity<typeof ProjectMember>;

/** A project shared with a group: the group's members get up to `groupAccess` on it. */
export const ProjectGroupLink = defineEntity({
  name: 'ProjectGroupLink',
  tableName: 'project_group_links',
  uniques: [{ properties: ['project', 'group'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    group: belongsTo(Namespace).index(),
    groupAccess: p.integer(),
    expiresAt: day().nullable(),
    createdAt: createdAt(),
  },
});
export type ProjectGroupLink = InferEntity<typeof ProjectGroupLink>;

/**
 * A path a project had before it (or a namespace above it) was renamed or moved: git clients that still use it are
 * redirected to where the project is now, as the original's redirect routes do. A project that takes the path wins.
 */
export const RedirectRoute = defineEntity({
  name: 'RedirectRoute',
  tableName: 'redirect_routes',
  indexes: [
    {
      name: 'redirect_routes_path_lower_index',
      expression: 'create unique index "redirect_routes_path_lower_index" on "redirect_routes" (lower("path"))',
    },
  ],
  properties: {
    id: p.integer().primary(),
    path: p.text(),
    project: belongsTo(Project).index(),
    createdAt: createdAt(),
  },
});
export type RedirectRoute = InferEntity<typeof RedirectRoute>;

/** A user's star on a project. */
export const ProjectStar = defineEntity({
  name: 'ProjectStar',
  tableName: 'project_stars',
  uniques: [{ properties: ['project', 'user'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    user: belongsTo(User).index(),
    createdAt: createdAt(),
  },
});
export type ProjectStar = InferEntity<typeof ProjectStar>;

/** A project's uploaded avatar: the image itself, served where its `avatar_url` points. */
export const ProjectAvatar = defineEntity({
  name: 'ProjectAvatar',
  tableName: 'project_avatars',
  properties: {
    project: () => p.oneToOne(Project).primary().owner().deleteRule('cascade'),
    ...image(),
  },
});
export type ProjectAvatar = InferEntity<typeof ProjectAvatar>;
