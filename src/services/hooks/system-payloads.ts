import type { AnyRecordedEvent } from '../../events/bus.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import { projectsAsEventsName } from '../projects/project-store.js';
import type { ProjectGone } from '../../events/kinds.js';

// The original's system hook payloads (app/services/system_hooks_service.rb of its 10.x–11.0 era), field for field:
// what happened to projects, users, their memberships, keys and groups, sent to every system hook.

/** A time as system hooks show it (Ruby's `xmlschema`: `2012-07-21T07:30:54Z`). */
const systemTime = (value: unknown): string | null =>
  value === null || value === undefined ? null : `${new Date(value as string).toISOString().slice(0, 19)}Z`;

/** The original's names of access levels (`Maintainer` since 11.0). */
const ACCESS_NAMES: Record<number, string> = { 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

/** The system events, by the event that raises each. */
const EVENT_NAMES: Partial<Record<AnyRecordedEvent['kind'], string>> = {
  'project.created': 'project_create',
  'project.destroyed': 'project_destroy',
  'project.renamed': 'project_rename',
  'project.transferred': 'project_transfer',
  'project.updated': 'project_update',
  'user.created': 'user_create',
  'user.destroyed': 'user_destroy',
  'user.renamed': 'user_rename',
  'key.created': 'key_create',
  'key.destroyed': 'key_destroy',
  'group.created': 'group_create',
  'group.destroyed': 'group_destroy',
  'group.renamed': 'group_rename',
};

/** The kinds of event that system hooks hear of (besides pushes and merge requests, which they ask for). */
export const SYSTEM_EVENT_KINDS = [
  ...Object.keys(EVENT_NAMES),
  'member.added',
  'member.updated',
  'member.removed',
] as AnyRecordedEvent['kind'][];

/**
 * What the removal of a project, a user or a group recorded of it (indexed by what it removed): an earlier event's
 * payload names it from there when the consumer comes to that event after the removal.
 */
const removalsRecorded = {
  project: (em: EntityManager, id: number) =>
    queryRows(em, sql`select data from events where kind = 'project.destroyed' and project_id = ${id} order by id desc limit 1`),
  user: (em: EntityManager, id: number) =>
    queryRows(em, sql`select data from events where kind = 'user.destroyed' and target_id = ${id} order by id desc limit 1`),
  group: (em: EntityManager, id: number) =>
    queryRows(em, sql`select data from events where kind = 'group.destroyed' and group_id = ${id} order by id desc limit 1`),
};

/** A project as system payloads name it: as it is, or as its removal recorded it. */
async function namedProject(em: EntityManager, id: number): Promise<ProjectGone | undefined> {
  const project = (await projectsAsEventsName(em, [id])).get(id);
  if (project) return project;
  const [removal] = await removalsRecorded.project(em, id);
  return removal?.data as ProjectGone | undefined;
}

/** A user's name, username and email: as they are, or as the user's removal recorded them. */
async function namedUser(em: EntityManager, id: number): Promise<Record<string, unknown> | undefined> {
  const [user] = await queryRows(em, sql`select name, username, email from users where id = ${id}`);
  if (user) return user;
  const [removal] = await removalsRecorded.user(em, id);
  return removal?.data as Record<string, unknown> | undefined;
}

/** A group's name and path: as they are, or as its removal recorded them. */
async function namedGroup(em: EntityManager, id: number): Promise<{ name: string; path: string } | undefined> {
  const [group] = await queryRows(em, sql`select name, path from namespaces where id = ${id}`);
  if (group) return group as { name: string; path: string };
  const [removal] = await removalsRecorded.group(em, id);
  const recorded = removal?.data as { full_path: string; name?: string } | undefined;
  const path = recorded?.full_path.split('/').pop();
  return recorded && path ? { name: recorded.name ?? path, path } : undefined;
}

/** The payload of a system event; undefined when what it names is gone and its removal recorded nothing of it. */
export async function systemPayload(em: EntityManager, event: AnyRecordedEvent): Promise<Record<string, unknown> | undefined> {
  const at = systemTime(event.created_at);
  switch (event.kind) {
    case 'project.created':
    case 'project.updated':
    case 'project.renamed':
    case 'project.transferred':
    case 'project.destroyed': {
      // A change of its path is a rename, and only that, as the original tells it.
      if (event.kind === 'project.updated' && event.data.changes.includes('path')) return undefined;
      const project = event.kind === 'project.destroyed' ? event.data : (event.data.project ?? (await namedProject(em, event.project_id!)));
      if (!project) return undefined;
      const moved = event.kind === 'project.renamed' || event.kind === 'project.transferred';
      return {
        created_at: systemTime(project.created_at ?? event.created_at),
        updated_at: systemTime(project.updated_at ?? event.created_at),
        event_name: EVENT_NAMES[event.kind],
        name: project.name ?? project.path_with_namespace.split('/').pop(),
        owner_email: project.owner_email ?? '',
        owner_name: project.owner_name ?? '',
        path: project.path ?? project.path_with_namespace.split('/').pop(),
        path_with_namespace: project.path_with_namespace,
        project_id: event.project_id,
        project_visibility: project.visibility ?? 'private',
        ...(moved ? { old_path_with_namespace: event.data.old_path } : {}),
      };
    }
    case 'user.created':
    case 'user.renamed':
    case 'user.destroyed': {
      const userId = event.target_id ?? null;
      // Removed since: as its removal recorded it.
      const user: Record<string, unknown> | undefined =
        event.kind === 'user.destroyed'
          ? { ...event.data, updated_at: event.created_at }
          : ((await queryRows(em, sql`select name, username, email, created_at, updated_at from users where id = ${userId}`))[0] ??
            (userId === null ? undefined : (await removalsRecorded.user(em, userId))[0]?.data));
      if (!user) return undefined;
      return {
        event_name: EVENT_NAMES[event.kind],
        created_at: systemTime(user.created_at ?? event.created_at),
        updated_at: systemTime(user.updated_at ?? event.created_at),
        name: user.name ?? user.username,
        email: user.email ?? '',
        user_id: userId,
        username: user.username,
        ...(event.kind === 'user.renamed' ? { old_username: event.data.old_path } : {}),
      };
    }
    case 'key.created':
    case 'key.destroyed': {
      const owner = await namedUser(em, event.data.user_id);
      const [key] =
        event.kind === 'key.created' ? await queryRows(em, sql`select key, created_at from ssh_keys where id = ${event.target_id}`) : [];
      return {
        event_name: EVENT_NAMES[event.kind],
        created_at: systemTime(key?.created_at ?? event.created_at),
        updated_at: systemTime(key?.created_at ?? event.created_at),
        ...(owner ? { username: owner.username } : {}),
        key: key?.key ?? event.data.key ?? '',
        id: event.target_id ?? null,
      };
    }
    case 'group.created':
    case 'group.renamed':
    case 'group.destroyed': {
      // Removed since: as its removal recorded it.
      const group: Record<string, unknown> | undefined =
        event.kind === 'group.destroyed'
          ? { ...event.data, updated_at: event.created_at }
          : ((
              await queryRows(em, sql`select name, path, full_path, created_at, updated_at from namespaces where id = ${event.group_id}`)
            )[0] ?? (await removalsRecorded.group(em, event.group_id!))[0]?.data);
      if (!group) return undefined;
      const fullPath = group.full_path as string;
      return {
        created_at: systemTime(group.created_at ?? event.created_at),
        updated_at: systemTime(group.updated_at ?? event.created_at),
        event_name: EVENT_NAMES[event.kind],
        name: group.name ?? fullPath.split('/').pop(),
        path: fullPath.split('/').pop(),
        full_path: fullPath,
        group_id: event.group_id,
        // Always null, as the original sends them.
        owner_name: null,
        owner_email: null,
        ...(event.kind === 'group.renamed' ? { old_path: event.data.old_path.split('/').pop(), old_full_path: event.data.old_path } : {}),
      };
    }
    case 'member.added':
    case 'member.updated':
    case 'member.removed': {
      const { source_type: source, user_id: userId, access_level: level } = event.data;
      const user = await namedUser(em, userId);
      if (!user) return undefined;
      const verb = { 'member.added': 'add_to', 'member.updated': 'update_for', 'member.removed': 'remove_from' }[event.kind];
      const member = { user_email: user.email, user_name: user.name, user_username: user.username, user_id: userId };
      if (source === 'Project') {
        const project = await namedProject(em, event.project_id!);
        if (!project) return undefined;
        return {
          created_at: at,
          updated_at: at,
          event_name: `user_${verb}_team`,
          // The documentation names it `project_access`; the original's code sent `access_level`: both are given.
          access_level: ACCESS_NAMES[level] ?? String(level),
          project_access: ACCESS_NAMES[level] ?? String(level),
          project_id: event.project_id,
          project_name: project.name,
          project_path: project.path,
          project_path_with_namespace: project.path_with_namespace,
          ...member,
          project_visibility: project.visibility,
        };
      }
      const group = await namedGroup(em, event.group_id!);
      if (!group) return undefined;
      return {
        created_at: at,
        updated_at: at,
        event_name: `user_${verb}_group`,
        group_access: ACCESS_NAMES[level] ?? String(level),
        group_id: event.group_id,
        group_name: group.name,
        group_path: group.path,
        ...member,
      };
    }
    default:
      return undefined;
  }
}
