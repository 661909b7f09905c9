import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, timestamps } from './columns.js';
import { Namespace } from './namespaces.js';
import { Project } from './projects.js';

/** A project's hook, an instance's system hook (administrators'), or a group's hook (every project of the group). */
export const HOOK_TYPES = ['ProjectHook', 'SystemHook', 'GroupHook'] as const;
export type HookType = (typeof HOOK_TYPES)[number];

/**
 * A webhook (the original's `web_hooks`): where deliveries go, the token sent with them (sealed: it is sent again,
 * never answered back), the events it asks for, and how its recent deliveries went (a hook that keeps failing is left
 * alone for a while, as the original does).
 */
export const WebHook = defineEntity({
  name: 'WebHook',
  tableName: 'web_hooks',
  indexes: [
    {
      name: 'web_hooks_system_index',
      expression: `create index "web_hooks_system_index" on "web_hooks" ("id") where "type" = 'SystemHook'`,
    },
  ],
  properties: {
    id: p.integer().primary(),
    type: p.enum(HOOK_TYPES),
    project: () => belongsTo(Project).nullable().index(),
    group: () => belongsTo(Namespace).nullable().index(),
    url: p.text(),
    tokenSealed: p.text().nullable(),
    pushEvents: p.boolean().default(true),
    pushEventsBranchFilter: p.text().nullable(),
    tagPushEvents: p.boolean().default(false),
    issuesEvents: p.boolean().default(false),
    confidentialIssuesEvents: p.boolean().default(false),
    mergeRequestsEvents: p.boolean().default(false),
    noteEvents: p.boolean().default(false),
    confidentialNoteEvents: p.boolean().default(false),
    jobEvents: p.boolean().default(false),
    pipelineEvents: p.boolean().default(false),
    wikiPageEvents: p.boolean().default(false),
    repositoryUpdateEvents: p.boolean().default(false),
    enableSslVerification: p.boolean().default(true),
    /** Deliveries failed in a row, and until when the hook is left alone after them. */
    recentFailures: p.integer().default(0),
    disabledUntil: p.datetime().nullable(),
    ...timestamps(),
  },
});
export type WebHook = InferEntity<typeof WebHook>;

/** Where a delivery stands: waiting its turn (or its retry), taken by the receiver, or given up. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One delivery of a hook (the original's `web_hook_logs`): the request as sent, and what came back, kept a while for
 * those who manage the hook; delivered in order per hook (`hook`, `id`).
 */
export const WebHookLog = defineEntity({
  name: 'WebHookLog',
  tableName: 'web_hook_logs',
  indexes: [
    { properties: ['hook', 'id'] },
    { properties: ['createdAt'] },
    {
      name: 'web_hook_logs_pending_index',
      expression: `create index "web_hook_logs_pending_index" on "web_hook_logs" ("hook_id", "id") where "status" = 'pending'`,
    },
  ],
  properties: {
    id: p.integer().primary(),
    hook: () => belongsTo(WebHook),
    /** The original's trigger names: `push_hooks`, `tag_push_hooks`, `issue_hooks`, ... */
    trigger: p.string().length(64),
    url: p.text(),
    requestHeaders: p.json<Record<string, string>>(),
    /** As sent: `json` keeps the payload's fields in their order. */
    requestData: p.json<Record<string, unknown>>().columnType('json'),
    status: p.enum(DELIVERY_STATUSES).default('pending'),
    attempts: p.integer().default(0),
    /** The status code as text, or `internal error` when no response came (the original's words). */
    responseStatus: p.string().length(32).nullable(),
    responseHeaders: p.json<Record<string, string>>().nullable(),
    responseBody: p.text().nullable(),
    internalErrorMessage: p.text().nullable(),
    /** Seconds, as the original records it. */
    executionDuration: p.double().nullable(),
    ...timestamps(),
  },
});
export type WebHookLog = InferEntity<typeof WebHookLog>;
