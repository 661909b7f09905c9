import { Type, type Static } from 'typebox';
import { BoundedText, DateTime, Nullable } from './common.js';

/**
 * Webhooks: a project's hooks (`/projects/:id/hooks`, its maintainers) and the instance's system hooks (`/hooks`,
 * administrators), as the original's API of SPEC.md's era answers them, with the fields later clients read beside
 * (`push_events_branch_filter`, `confidential_note_events`, `repository_update_events`). The token is never answered.
 */

const closed = { additionalProperties: false } as const;

const flag = (description: string) => Type.Boolean({ description });

/** What project and group hooks answer alike. */
const hookFields = {
  id: Type.Integer(),
  url: Type.String(),
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
  alert_status: Type.Union([Type.Literal('executable'), Type.Literal('temporarily_disabled')], {
    description: 'later versions’: `temporarily_disabled` while it is left alone after failing deliveries in a row',
  }),
  disabled_until: Nullable(Type.String({ format: 'date-time', description: 'until when it is left alone' })),
  created_at: DateTime,
};

export const ProjectHook = Type.Object({ ...hookFields, project_id: Type.Integer() }, { ...closed, title: 'ProjectHook' });
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

/** A group's hook (later versions): it hears of every project of the group and of its subgroups. */
export const GroupHook = Type.Object({ ...hookFields, group_id: Type.Integer() }, { ...closed, title: 'GroupHook' });
export type GroupHook = Static<typeof GroupHook>;

/** An instance's system hook, as `/hooks` answers it (administrators). */
export const SystemHook = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    push_events: flag('pushes to branches of every project'),
    tag_push_events: flag('tags pushed or deleted'),
    merge_requests_events: flag('merge requests of every project'),
    repository_update_events: flag('any reference moved (`repository_update`)'),
    enable_ssl_verification: flag('verify the receiver’s TLS certificate'),
    created_at: DateTime,
  },
  { ...closed, title: 'SystemHook' },
);
export type SystemHook = Static<typeof SystemHook>;

export const CreateSystemHookInput = Type.Object({
  url,
  token: Type.Optional(token),
  push_events: optionalFlag('pushes to branches (default false)'),
  tag_push_events: optionalFlag('tags pushed or deleted (default false)'),
  merge_requests_events: optionalFlag('merge requests (default false)'),
  repository_update_events: optionalFlag('references moved (default true)'),
  enable_ssl_verification: optionalFlag('verify the receiver’s TLS certificate (default true)'),
});
export type CreateSystemHookInput = Static<typeof CreateSystemHookInput>;

/** The record of one delivery (later versions’ hook events): the request as sent, what came back, how long it took. */
export const HookEvent = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    trigger: Type.String({ description: '`push_hooks`, `issue_hooks`, `merge_request_hooks`, `note_hooks`, `system_hooks`, ...' }),
    request_headers: Type.Record(Type.String(), Type.String()),
    request_data: Type.Record(Type.String(), Type.Unknown()),
    response_headers: Type.Record(Type.String(), Type.String()),
    response_body: Type.String({ description: 'its start, 8 KiB at most' }),
    execution_duration: Type.Number({ description: 'seconds' }),
    response_status: Type.String({ description: 'the status code, `internal error` when none came, `pending` before a try' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
      description: 'waiting its turn or its next try, taken by the receiver, or given up after its tries',
    }),
    attempts: Type.Integer({ description: 'tries so far' }),
    created_at: DateTime,
  },
  { ...closed, title: 'HookEvent' },
);
export type HookEvent = Static<typeof HookEvent>;

export const ListHookEventsQuery = Type.Object({
  status: Type.Optional(
    Type.Union(
      [
        Type.Integer({ minimum: 100, maximum: 599 }),
        Type.Union([Type.Literal('successful'), Type.Literal('client_failure'), Type.Literal('server_failure')]),
      ],
      { description: 'a response status, or `successful` (2xx), `client_failure` (4xx), `server_failure` (5xx and none)' },
    ),
  ),
});
export type ListHookEventsQuery = Static<typeof ListHookEventsQuery>;

export const ResentHookEvent = Type.Object(
  { response_status: Type.Union([Type.Integer(), Type.String()], { description: 'the receiver’s status; `internal error` for none' }) },
  { ...closed, title: 'ResentHookEvent' },
);
export type ResentHookEvent = Static<typeof ResentHookEvent>;

export const HookTestResult = Type.Object({ message: Type.String() }, { ...closed, title: 'HookTestResult' });
export type HookTestResult = Static<typeof HookTestResult>;

/** What `GET /hooks/:hook_id` sends a system hook to test it, and answers. */
export const SystemHookTest = Type.Object(
  {
    project_id: Type.Integer(),
    owner_email: Type.String(),
    owner_name: Type.String(),
    name: Type.String(),
    path: Type.String(),
    event_name: Type.String(),
  },
  { ...closed, title: 'SystemHookTest' },
);
export type SystemHookTest = Static<typeof SystemHookTest>;

/** The triggers a project hook's test may name (`POST /projects/:id/hooks/:hook_id/test/:trigger`, later versions). */
export const HOOK_TEST_TRIGGERS = [
  'push_events',
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'confidential_note_events',
  'merge_requests_events',
  'pipeline_events',
  'job_events',
  'wiki_page_events',
] as const;
export const HookTestTrigger = Type.Enum(HOOK_TEST_TRIGGERS, { description: 'the kind of event to send a sample of' });
export type HookTestTrigger = (typeof HOOK_TEST_TRIGGERS)[number];
