import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, createdAt, digest, timestamps } from './columns.js';
import { Namespace } from './namespaces.js';
import { Project } from './projects.js';

/**
 * What a runner is to the instance (the original's `runner_type`): shared by every project (`instance_type`, made
 * with the instance's registration token), a group's (`group_type`, with a group's runners token) or specific to
 * the projects it is enabled in (`project_type`, with a project's).
 */
export const RUNNER_TYPES = ['instance_type', 'group_type', 'project_type'] as const;
export type RunnerType = (typeof RUNNER_TYPES)[number];

/** Which refs' jobs a runner takes: any, or protected branches and tags only. */
export const RUNNER_ACCESS_LEVELS = ['not_protected', 'ref_protected'] as const;
export type RunnerAccessLevel = (typeof RUNNER_ACCESS_LEVELS)[number];

/**
 * A CI runner. Its token is what the runner authenticates with: found by its digest, and kept sealed
 * (src/auth/secret-box.ts) so that its detail can show it again to those allowed. `contactedAt` is the last time it
 * reached the instance (registration does not count, as in the original), which `online` and `status` read.
 */
export const Runner = defineEntity({
  name: 'Runner',
  tableName: 'runners',
  indexes: [
    { properties: ['runnerType'] },
    { properties: ['active'] },
    { properties: ['contactedAt'] },
    { name: 'runners_tag_list_index', expression: 'create index "runners_tag_list_index" on "runners" using gin ("tag_list")' },
  ],
  properties: {
    id: p.integer().primary(),
    tokenDigest: digest().unique(),
    tokenSealed: p.text(),
    runnerType: p.enum(RUNNER_TYPES),
    description: p.string().length(255).default(''),
    active: p.boolean().default(true),
    locked: p.boolean().default(false),
    runUntagged: p.boolean().default(true),
    accessLevel: p.enum(RUNNER_ACCESS_LEVELS).default('not_protected'),
    /** Seconds; null: the project's own timeout. */
    maximumTimeout: p.integer().nullable(),
    tagList: p.array().default([]),
    /** What the runner said of itself (`info`) when it registered or last reached the instance. */
    name: p.string().length(255).nullable(),
    version: p.string().length(255).nullable(),
    revision: p.string().length(255).nullable(),
    platform: p.string().length(255).nullable(),
    architecture: p.string().length(255).nullable(),
    ipAddress: p.string().length(255).nullable(),
    contactedAt: p.datetime().nullable(),
    ...timestamps(),
  },
});
export type Runner = InferEntity<typeof Runner>;

/** A specific runner enabled in a project (the original's `ci_runner_projects`). */
export const RunnerProject = defineEntity({
  name: 'RunnerProject',
  tableName: 'runner_projects',
  uniques: [{ properties: ['runner', 'project'] }],
  properties: {
    id: p.integer().primary(),
    runner: belongsTo(Runner),
    project: belongsTo(Project).index(),
    createdAt: createdAt(),
  },
});
export type RunnerProject = InferEntity<typeof RunnerProject>;

/** A group runner's group (the original's `ci_runner_namespaces`): exactly one per group runner. */
export const RunnerGroup = defineEntity({
  name: 'RunnerGroup',
  tableName: 'runner_groups',
  properties: {
    id: p.integer().primary(),
    runner: belongsTo(Runner).unique(),
    group: belongsTo(Namespace).index(),
    createdAt: createdAt(),
  },
});
export type RunnerGroup = InferEntity<typeof RunnerGroup>;
