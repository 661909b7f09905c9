import { Type, type Static } from 'typebox';
import { BoundedText, DateTime, Nullable } from './common.js';

/**
 * Webhooks: a project's hooks (`/projects/:id/hooks`, its maintainers) and the instance's system hooks (`/hooks`,
 * administrators), as the original's API of SPEC.md's era answers them, with the fields later clients read beside
 * (`push_events_branch_filter`, `confidential_note_events`, `repository_update_events`). The token is never answered.
 */

const closed = { additionalProperties: false } as const;

const flag = (description: string) => Type.Boolean({ description });

export const ProjectHook = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    project_id: Type.Integer(),
    push_events: flag('pushes to branches'),
    push_events_branch_filter: Nullable(Type.String({ description: 'only pushes to branches of this name or wildcard (later clients)' })),
    tag_push_events: flag('tags pushed or deleted'),
    issues_events: flag('issues opened, changed, closed or reopened'),
    confidential_issues_events: flag('the same for confidential issues'),
    merge_requests_events: flag('merge requests opened, changed, merged, closed or reopened'),
    note_events: flag('comments'),
    confidential_note_events: flag('comments on confidential issues (later clients)'),
    job_events: flag('jobs (none are run: never sent)'),
    pipeline_events: flag('pipelines changing status'),
    wiki_page_events: flag('wiki pages (no wiki is kept: never sent)'),
    repository_update_events: flag('a system hook’s: false for a project’s'),
    enable_ssl_verification: flag('verify the receiver’s TLS certificate'),
    created_at: DateTime,
  },
  { ...closed, title: 'ProjectHook' },
);
export type ProjectHook = Static<typeof ProjectHook>;

const url = BoundedText({ maxLength: 2048, description: 'where deliveries go: an http(s) URL' });
const token = BoundedText({ description: 'sent with every delivery as `X-Gitlab-Token`; never answered back' });
const optionalFlag = (description: string) => Type.Optional(Type.Boolean({ description }));

const projectHookFlags = {
  push_events: optionalFlag('pushes to branches (default true)'),
  push_events_branch_filter: Type.Optional(Nullable(BoundedText({ description: 'a branch name or wildcard (`release/*`)' }))),
  tag_push_events: optionalFlag('tags pushed or deleted'),
  issues_events: optionalFlag('issues'),
  confidential_issues_events: optionalFlag('confidential issues'),
  merge_requests_events: optionalFlag('merge requests'),
  note_events: optionalFlag('comments'),
  confidential_note_events: optionalFlag('comments on confidential issues'),
  job_events: optionalFlag('jobs'),
  pipeline_events: optionalFlag('pipelines'),
  wiki_page_events: optionalFlag('wiki pages'),
  enable_ssl_verification: optionalFlag('verify the receiver’s TLS certificate (default true)'),
  token: Type.Optional(token),
};

export const CreateProjectHookInput = Type.Object({ url, ...projectHookFlags });
export type CreateProjectHookInput = Static<typeof CreateProjectHookInput>;

/** SPEC.md's era requires `url` again; later clients send only what changes: both are taken. */
export const UpdateProjectHookInput = Type.Object({ url: Type.Optional(url), ...projectHookFlags });
export type UpdateProjectHookInput = Static<typeof UpdateProjectHookInput>;
