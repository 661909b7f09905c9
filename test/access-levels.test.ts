import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS, type Caller } from '../src/auth/caller.js';
import { accessLevelSql, canReadProject, visibleProjectsSql } from '../src/auth/access-levels.js';
import type { User, Visibility } from '../src/db/entities/index.js';
import { createUser, startHosting, type TestHosting } from './helpers.js';

// The permission model's table: each kind of caller's access level on private, internal and public projects
// reached directly, through a parent group and through a share, and whether it sees them. Written directly
// in the database: what is tested is the rule, the same for every endpoint that asks it.
let t: TestHosting;
beforeAll(async () => {
  t = await startHosting();
});
afterAll(() => t.close());

const sql = <Row>(text: string, values: unknown[] = []) => t.db.rows.execute<Row[]>(text, values);

async function group(path: string, parent?: { id: number; traversal: number[]; fullPath: string }) {
  const fullPath = parent ? `${parent.fullPath}/${path}` : path;
  const [{ id }] = await sql<{ id: number }>(
    `insert into "namespaces" ("kind", "name", "path", "full_path", "full_name", "parent_id", "traversal_ids", "visibility", "created_at", "updated_at")
     values ('group', ?, ?, ?, ?, ?, '{}', 'private', now(), now()) returning "id"`,
    [path, path, fullPath, fullPath, parent?.id ?? null],
  );
  const traversal = [...(parent?.traversal ?? []), id];
  await sql(`update "namespaces" set "traversal_ids" = ? where "id" = ?`, [`{${traversal.join(',')}}`, id]);
  return { id, traversal, fullPath };
}

async function project(namespaceId: number, path: string, visibility: Visibility): Promise<number> {
  const [{ id }] = await sql<{ id: number }>(
    `insert into "projects" ("name", "path", "namespace_id", "visibility", "repository_storage", "created_at", "updated_at", "last_activity_at")
     values (?, ?, ?, ?, 'default', now(), now(), now()) returning "id"`,
    [path, path, namespaceId, visibility],
  );
  return id;
}

const member = (table: 'project_members' | 'group_members', column: 'project_id' | 'group_id', sourceId: number, userId: number, level: number, expiresAt: string | null = null) =>
  sql(`insert into "${table}" ("${column}", "user_id", "access_level", "expires_at", "created_at") values (?, ?, ?, ?, now())`, [sourceId, userId, level, expiresAt]);

async function callerOf(overrides: Record<string, unknown> = {}): Promise<Caller> {
  const { id } = await createUser(t.hosting, overrides);
  const [user] = await sql<User>('select "id", "admin", "external", "state" from "users" where "id" = ?', [id]);
  return { user: { ...user } as User, scopes: null, token: null, privateToken: null };
}

async function levelOf(caller: Caller, projectId: number): Promise<number> {
  if (!caller.user) return 0;
  const [{ level }] = await sql<{ level: number }>(
    `select ${accessLevelSql(caller.user.id)} as "level" from "projects" p join "namespaces" n on n."id" = p."namespace_id" where p."id" = ?`,
    [projectId],
  );
  return level;
}

async function visibleTo(caller: Caller, ids: number[]): Promise<number[]> {
  const rows = await sql<{ id: number }>(`select p."id" from "projects" p where p."id" in (${ids.join(', ')}) and ${visibleProjectsSql(caller)} order by p."id"`);
  return rows.map((row) => row.id);
}

const VISIBILITIES: Visibility[] = ['private', 'internal', 'public'];

describe('the access level and visibility of projects', () => {
  // Per visibility: a project in top/sub (reached through groups), and a project in another group shared with `team`.
  const inSub: Record<string, number> = {};
  const sharedWithTeam: Record<string, number> = {};
  const callers: Record<string, Caller> = {};

  beforeAll(async () => {
    const top = await group(`top-${Date.now()}`);
    const sub = await group('sub', top);
    const elsewhere = await group(`elsewhere-${Date.now()}`);
    const team = await group(`team-${Date.now()}`);
    const teamChild = await group('child', team);
    for (const visibility of VISIBILITIES) {
      inSub[visibility] = await project(sub.id, `in-sub-${visibility}`, visibility);
      sharedWithTeam[visibility] = await project(elsewhere.id, `shared-${visibility}`, visibility);
      await sql(`insert into "project_group_links" ("project_id", "group_id", "group_access", "created_at") values (?, ?, 20, now())`, [sharedWithTeam[visibility], team.id]);
    }
    callers.anonymous = ANONYMOUS;
    callers.nonMember = await callerOf();
    callers.external = await callerOf({ external: true });
    callers.admin = await callerOf({ admin: true });
    for (const [name, level] of [['guest', 10], ['reporter', 20], ['developer', 30], ['maintainer', 40], ['owner', 50]] as const) {
      callers[name] = await callerOf();
      for (const visibility of VISIBILITIES) await member('project_members', 'project_id', inSub[visibility], callers[name].user!.id, level);
    }
    // Through the top group: inherited by sub and its projects.
    callers.topDeveloper = await callerOf();
    await member('group_members', 'group_id', top.id, callers.topDeveloper.user!.id, 30);
    // A member of the team that projects are shared with, at maintainer: capped at the share's reporter.
    callers.teamMaintainer = await callerOf();
    await member('group_members', 'group_id', team.id, callers.teamMaintainer.user!.id, 40);
    // A member of a subgroup of the team only: a share reaches the group and its ancestors' members, not its subgroups'.
    callers.teamChildMember = await callerOf();
    await member('group_members', 'group_id', teamChild.id, callers.teamChildMember.user!.id, 50);
    // Expired memberships count for nothing.
    callers.expired = await callerOf();
    for (const visibility of VISIBILITIES) await member('project_members', 'project_id', inSub[visibility], callers.expired.user!.id, 40, '2000-01-01');
    // An external user who is a member sees what it is a member of.
    callers.externalReporter = await callerOf({ external: true });
    for (const visibility of VISIBILITIES) await member('project_members', 'project_id', inSub[visibility], callers.externalReporter.user!.id, 20);
  });

  // [caller, level on the projects of top/sub, level on the projects shared with team]
  const levels: [string, number, number][] = [
    ['anonymous', 0, 0],
    ['nonMember', 0, 0],
    ['external', 0, 0],
    ['admin', 0, 0],
    ['guest', 10, 0],
    ['reporter', 20, 0],
    ['developer', 30, 0],
    ['maintainer', 40, 0],
    ['owner', 50, 0],
    ['topDeveloper', 30, 0],
    ['teamMaintainer', 0, 20],
    ['teamChildMember', 0, 0],
    ['expired', 0, 0],
    ['externalReporter', 20, 0],
  ];

  it.each(levels)('%s: level %i through the groups, %i through the share', async (name, inSubLevel, sharedLevel) => {
    for (const visibility of VISIBILITIES) {
      expect(await levelOf(callers[name], inSub[visibility])).toBe(inSubLevel);
      expect(await levelOf(callers[name], sharedWithTeam[visibility])).toBe(sharedLevel);
    }
  });

  // What each caller sees of the six projects, by visibility: [private, internal, public] for each pair.
  const seen: [string, boolean, boolean, boolean][] = [
    ['anonymous', false, false, true],
    ['nonMember', false, true, true],
    ['external', false, false, true],
    ['admin', true, true, true],
    ['guest', true, true, true],
    ['topDeveloper', true, true, true],
    ['expired', false, true, true],
    ['externalReporter', true, true, true],
  ];

  it.each(seen)('%s sees private %s, internal %s, public %s (in a list, and one by one)', async (name, privateSeen, internalSeen, publicSeen) => {
    const caller = callers[name];
    const expected = { private: privateSeen, internal: internalSeen, public: publicSeen };
    const listed = await visibleTo(caller, VISIBILITIES.map((visibility) => inSub[visibility]));
    for (const visibility of VISIBILITIES) {
      expect(listed.includes(inSub[visibility])).toBe(expected[visibility]);
      expect(canReadProject(caller, visibility, await levelOf(caller, inSub[visibility]))).toBe(expected[visibility]);
    }
  });

  it('lets a share reach its group’s members: the team maintainer sees the shared private project, the subgroup member does not', async () => {
    expect(await visibleTo(callers.teamMaintainer, [sharedWithTeam.private])).toEqual([sharedWithTeam.private]);
    expect(await visibleTo(callers.teamChildMember, [sharedWithTeam.private])).toEqual([]);
  });

  it('gives a user owner access in its own namespace', async () => {
    const user = await callerOf();
    const [{ id: namespaceId }] = await sql<{ id: number }>('select "id" from "namespaces" where "owner_id" = ?', [user.user!.id]);
    const own = await project(namespaceId, 'own', 'private');
    expect(await levelOf(user, own)).toBe(50);
    expect(await visibleTo(user, [own])).toEqual([own]);
    expect(await visibleTo(callers.nonMember, [own])).toEqual([]);
  });
});
