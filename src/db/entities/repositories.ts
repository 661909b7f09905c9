import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, createdAt, now, refersTo, timestamps } from './columns.js';
import { Project } from './projects.js';
import { User } from './user.js';

/**
 * What the database keeps beside a project's repository. Each row names commits and references by object ID
 * and name: the repository holds the commits, these hold what the original service keeps about them.
 */

/** A branch name (or a pattern with `*`) that only some may push to, merge into or delete. */
export const ProtectedBranch = defineEntity({
  name: 'ProtectedBranch',
  tableName: 'protected_branches',
  uniques: [{ properties: ['project', 'name'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    name: p.string().length(255),
    /** The lowest access level that may push (30 developers, 40 maintainers). */
    pushAccessLevel: p.integer(),
    /** The lowest access level that may merge into it. */
    mergeAccessLevel: p.integer(),
    createdAt: createdAt(),
  },
});
export type ProtectedBranch = InferEntity<typeof ProtectedBranch>;

/** A commit status's and a pipeline's states, in the original's words. */
export const PIPELINE_STATUSES = ['created', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual'] as const;
export type PipelineStatus = (typeof PIPELINE_STATUSES)[number];

/** When a pipeline or a status was made and changed, and when it ran. */
const runTimes = () => ({
  ...timestamps(),
  startedAt: p.datetime().nullable(),
  finishedAt: p.datetime().nullable(),
});

/** The statuses posted for one commit and ref: its pipeline, whose status the statuses make. */
export const Pipeline = defineEntity({
  name: 'Pipeline',
  tableName: 'pipelines',
  indexes: [{ properties: ['project', 'sha'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    sha: p.string().length(40),
    ref: p.string().length(255).nullable(),
    status: p.enum(PIPELINE_STATUSES).default('created'),
    user: refersTo(User).index(),
    ...runTimes(),
  },
});
export type Pipeline = InferEntity<typeof Pipeline>;

/** A status an external system posted for a commit (`POST /projects/:id/statuses/:sha`), one per name and pipeline. */
export const CommitStatus = defineEntity({
  name: 'CommitStatus',
  tableName: 'commit_statuses',
  indexes: [{ properties: ['project', 'sha'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    pipeline: belongsTo(Pipeline).index(),
    sha: p.string().length(40),
    ref: p.string().length(255).nullable(),
    name: p.string().length(255),
    stage: p.string().length(255).default('test'),
    status: p.enum(PIPELINE_STATUSES),
    targetUrl: p.text().nullable(),
    description: p.text().nullable(),
    coverage: p.double().nullable(),
    allowFailure: p.boolean().default(false),
    author: refersTo(User).index(),
    ...runTimes(),
  },
});
export type CommitStatus = InferEntity<typeof CommitStatus>;

/** A comment on a commit: on the commit as a whole, or on one line of one of its files. */
export const CommitNote = defineEntity({
  name: 'CommitNote',
  tableName: 'commit_notes',
  indexes: [{ properties: ['project', 'commitSha'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    commitSha: p.string().length(40),
    note: p.text(),
    path: p.text().nullable(),
    line: p.integer().nullable(),
    lineType: p.enum(['new', 'old'] as const).nullable(),
    author: refersTo(User).index(),
    ...timestamps(),
  },
});
export type CommitNote = InferEntity<typeof CommitNote>;

/** The release notes of a tag, by the tag's name: the tag lives in the repository. */
export const Release = defineEntity({
  name: 'Release',
  tableName: 'releases',
  uniques: [{ properties: ['project', 'tagName'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    tagName: p.string().length(255),
    name: p.string().length(255).nullable(),
    description: p.text(),
    /** The commit the tag named when the release was made. */
    sha: p.string().length(40).nullable(),
    author: refersTo(User).index(),
    ...timestamps(),
    releasedAt: p.datetime().onCreate(now),
  },
});
export type Release = InferEntity<typeof Release>;
