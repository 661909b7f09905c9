import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS, type Caller } from '../src/auth/caller.js';
import { can, type Ability, type GroupInScope, type ProjectInScope } from '../src/auth/abilities.js';
import { queryRows } from '../src/db/rows.js';
import { sql, type Sql } from '../src/db/sql.js';
import {
  accessLevelSql,
  canReadProject,
  dayOf,
  groupAccessColumnsSql,
  readsCodeSql,
  visibleGroupsSql,
  visibleIssuesSql,
  visibleMergeRequestsSql,
  visibleProjectsSql,
} from '../src/auth/access-levels.js';
import type { Namespace, Project, User, Visibility } from '../src/db/entities/index.js';
import { createUser, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

// The permission model's table: each kind of caller's access level on private, internal and public projects
// reached directly, through a parent group and through a share, and whether it sees them. Written directly
// in the database: what is tested is the rule, the same for every endpoint that asks it.
let t: TestHosting;
beforeAll(async () => {
  t = await sharedHosting();
});
afterAll(() => t.close());

/** A statement with `?` for each value, for the test's own rows. */
const run = <Row>(text: string, values: unknown[] = []) => t.db.rows.execute<Row[]>(text, values);
/** A statement with a fragment of the rules (src/auth/access-levels.ts) in it. */
const withRule = async <Row>(statement: Sql) => (await queryRows(t.db.rows, statement)) as Row[];

async function group(path: string, parent?: { id: number; traversal: number[]; fullPath: string }, visibility: Visibility = 'private') {
  const fullPath = parent ? `${parent.fullPath}/${path}` : path;
  const [{ id }] = await run<{ id: number }>(
    `insert into "namespaces" ("kind", "name", "path", "full_path", "full_name", "parent_id", "traversal_ids", "visibility", ` +
      `"created_at", "updated_at")
     values ('group', ?, ?, ?, ?, ?, '{}', ?, now(), now()) returning "id"`,
    [path, path, fullPath, fullPath, parent?.id ?? null, visibility],
  );
  const traversal = [...(parent?.traversal ?? []), id];
  await run(`update "namespaces" set "traversal_ids" = ? where "id" = ?`, [`{${traversal.join(',')}}`, id]);
  return { id, traversal, fullPath };
}

async function project(namespaceId: number, path: string, visibility: Visibility): Promise<number> {
  const [{ id }] = await run<{ id: number }>(
    `insert into "projects" ("name", "path", "namespace_id", "visibility", "repository_storage", "created_at", "updated_at", ` +
      `"last_activity_at")
     values (?, ?, ?, ?, 'default', now(), now(), now()) returning "id"`,
    [path, path, namespaceId, visibility],
  );
  return id;
}

const member = (
  table: 'project_members' | 'group_members',
  column: 'project_id' | 'group_id',
  sourceId: number,
  userId: number,
  level: number,
  expiresAt: string | null = null,
) =>
  run(`insert into "${table}" ("${column}", "user_id", "access_level", "expires_at", "created_at") values (?, ?, ?, ?, now())`, [
    sourceId,
    userId,
    level,
    expiresAt,
  ]);

async function callerOf(overrides: Record<string, unknown> = {}): Promise<Caller> {
  const { id } = await createUser(t.hosting, overrides);
  const [user] = await run<User>('select "id", "admin", "external", "state" from "users" where "id" = ?', [id]);
  return { user: { ...user } as User, scopes: null, token: null, privateToken: null };
}

async function levelOf(caller: Caller, projectId: number): Promise<number> {
  if (!caller.user) return 0;
  const [{ level }] = await withRule<{ level: number }>(
    sql`select ${accessLevelSql(caller.user.id, today())} as "level" from "projects" p join "namespaces" n on n."id" = p."namespace_id"
      where p."id" = ${projectId}`,
  );
  return level;
}

async function visibleTo(caller: Caller, ids: number[]): Promise<number[]> {
  const rows = await withRule<{ id: number }>(
    sql`select p."id" from "projects" p where p."id" = any(${ids}) and ${visibleProjectsSql(caller, today())} order by p."id"`,
  );
  return rows.map((row) => row.id);
}

/** The instance's day, as a call takes it (`ctx.today()`). */
const today = () => dayOf(t.hosting.clock.now());

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
      for (const project of [inSub[visibility], sharedWithTeam[visibility]]) {
        for (const [iid, confidential] of [
          [1, false],
          [2, true],
        ] as const) {
          await run(
            `insert into "issues" ("project_id", "iid", "title", "author_id", "confidential", "created_at", "updated_at") ` +
              `values (?, ?, 'issue', 1, ?, now(), now())`,
            [project, iid, confidential],
          );
        }
      }
      await run(`insert into "project_group_links" ("project_id", "group_id", "group_access", "created_at") values (?, ?, 20, now())`, [
        sharedWithTeam[visibility],
        team.id,
      ]);
    }
    callers.anonymous = ANONYMOUS;
    callers.nonMember = await callerOf();
    callers.external = await callerOf({ external: true });
    callers.admin = await callerOf({ admin: true });
    for (const [name, level] of [
      ['guest', 10],
      ['reporter', 20],
      ['developer', 30],
      ['maintainer', 40],
      ['owner', 50],
    ] as const) {
      callers[name] = await callerOf();
      for (const visibility of VISIBILITIES)
        await member('project_members', 'project_id', inSub[visibility], callers[name].user!.id, level);
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
    for (const visibility of VISIBILITIES)
      await member('project_members', 'project_id', inSub[visibility], callers.expired.user!.id, 40, '2000-01-01');
    // An external user who is a member sees what it is a member of.
    callers.externalReporter = await callerOf({ external: true });
    for (const visibility of VISIBILITIES)
      await member('project_members', 'project_id', inSub[visibility], callers.externalReporter.user!.id, 20);
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

  it.each(seen)(
    '%s sees private %s, internal %s, public %s (in a list, and one by one)',
    async (name, privateSeen, internalSeen, publicSeen) => {
      const caller = callers[name];
      const expected = { private: privateSeen, internal: internalSeen, public: publicSeen };
      const listed = await visibleTo(
        caller,
        VISIBILITIES.map((visibility) => inSub[visibility]),
      );
      for (const visibility of VISIBILITIES) {
        expect(listed.includes(inSub[visibility])).toBe(expected[visibility]);
        expect(canReadProject(caller, visibility, await levelOf(caller, inSub[visibility]))).toBe(expected[visibility]);
      }
    },
  );

  it(
    'lets a share reach its group’s members: ' + 'the team maintainer sees the shared private project, the subgroup member does not',
    async () => {
      expect(await visibleTo(callers.teamMaintainer, [sharedWithTeam.private])).toEqual([sharedWithTeam.private]);
      expect(await visibleTo(callers.teamChildMember, [sharedWithTeam.private])).toEqual([]);
    },
  );

  // The project abilities each caller has, by the levels above: [caller, through the groups, through the share], each
  // a string of the abilities allowed on the private, internal and public project in turn (r read, a admin_project
  // and admin_project_member, o the owners': remove_project, change_namespace, rename_project, change_visibility_level;
  // c reading the code: download_code and fork_project, p writing it: push_code and create_commit_status, n create_note).
  const abilities: [string, string, string][] = [
    ['anonymous', '- - rc', '- - rc'],
    ['nonMember', '- rcn rcn', '- rcn rcn'],
    ['external', '- - rcn', '- - rcn'],
    ['admin', 'raocpn raocpn raocpn', 'raocpn raocpn raocpn'],
    ['guest', 'r rcn rcn', '- rcn rcn'],
    ['reporter', 'rcn rcn rcn', '- rcn rcn'],
    ['developer', 'rcpn rcpn rcpn', '- rcn rcn'],
    ['maintainer', 'racpn racpn racpn', '- rcn rcn'],
    ['owner', 'raocpn raocpn raocpn', '- rcn rcn'],
    ['topDeveloper', 'rcpn rcpn rcpn', '- rcn rcn'],
    ['teamMaintainer', '- rcn rcn', 'rcn rcn rcn'],
    ['teamChildMember', '- rcn rcn', '- rcn rcn'],
    ['expired', '- rcn rcn', '- rcn rcn'],
    ['externalReporter', 'rcn rcn rcn', '- - rcn'],
  ];
  const LETTERS: [string, Ability[]][] = [
    ['r', ['read_project']],
    ['a', ['admin_project', 'admin_project_member']],
    ['o', ['remove_project', 'change_namespace', 'rename_project', 'change_visibility_level']],
    ['c', ['download_code', 'fork_project']],
    ['p', ['push_code', 'create_commit_status']],
    ['n', ['create_note']],
  ];

  /** The project as a scope loads it, with the caller's levels (what src/services/projects/projects.ts findInScope reads). */
  async function scoped(caller: Caller, projectId: number): Promise<ProjectInScope> {
    const [row] = await run<{ visibility: Visibility }>('select "visibility" from "projects" where "id" = ?', [projectId]);
    return {
      project: { id: projectId, visibility: row.visibility } as Project,
      namespace: {} as Namespace,
      accessLevel: await levelOf(caller, projectId),
      projectAccess: null,
      groupAccess: null,
    };
  }

  it.each(abilities)('%s may: through the groups %s; through the share %s', async (name, throughGroups, throughShare) => {
    for (const [projects, expected] of [
      [inSub, throughGroups],
      [sharedWithTeam, throughShare],
    ] as const) {
      const letters = expected.split(' ');
      for (const [index, visibility] of VISIBILITIES.entries()) {
        const resource = await scoped(callers[name], projects[visibility]);
        for (const [letter, names] of LETTERS) {
          for (const ability of names)
            expect(`${ability} on ${visibility}: ${can(callers[name], ability, resource as never)}`).toBe(
              `${ability} on ${visibility}: ${letters[index].includes(letter)}`,
            );
        }
      }
    }
  });

  /**
   * The SQL conditions lists filter with (src/auth/access-levels.ts) and the policies (src/auth/policies/) are two
   * writings of one rule: for every kind of caller and every project above, each condition keeps exactly the projects
   * (and issues) its ability allows.
   */
  it.each(levels.map(([name]) => [name]))('%s: each list condition keeps exactly what its ability allows', async (name) => {
    const caller = callers[name];
    const ids = [...Object.values(inSub), ...Object.values(sharedWithTeam)];
    const kept = async (condition: Sql) =>
      (
        await withRule<{ id: number }>(
          sql`select p."id" from "projects" p join "namespaces" n on n."id" = p."namespace_id" where p."id" = any(${ids}) and ${condition}`,
        )
      ).map((row) => row.id);
    const conditions: [Ability, Sql][] = [
      ['read_project', visibleProjectsSql(caller, today())],
      ['download_code', sql`${visibleProjectsSql(caller, today())} and ${readsCodeSql(caller, today())}`],
      ['read_merge_requests', visibleMergeRequestsSql(caller, today())],
    ];
    for (const [ability, condition] of conditions) {
      const allowed: number[] = [];
      for (const id of ids) if (can(caller, ability, (await scoped(caller, id)) as never)) allowed.push(id);
      expect((await kept(condition)).sort(), `${name} ${ability}`).toEqual(allowed.sort());
    }
    // Issues: an open one and a confidential one of someone else's on each project.
    const issues = await withRule<{ id: number; project_id: number; confidential: boolean }>(
      sql`select i."id", i."project_id", i."confidential" from "issues" i join "projects" p on p."id" = i."project_id"
        join "namespaces" n on n."id" = p."namespace_id" where i."project_id" = any(${ids}) and ${visibleIssuesSql(caller, today())}`,
    );
    const allowed: string[] = [];
    for (const id of ids) {
      for (const confidential of [false, true]) {
        const issue = { project: await scoped(caller, id), issue: { authorId: 1, assigneeIds: [], confidential, discussionLocked: false } };
        if (can(caller, 'read_issue', issue)) allowed.push(`${id} ${confidential}`);
      }
    }
    expect(issues.map((issue) => `${issue.project_id} ${issue.confidential}`).sort(), `${name} read_issue`).toEqual(allowed.sort());
  });

  it('gives a blocked user nothing at all: it cannot authenticate', async () => {
    const blocked = await createUser(t.hosting);
    await t.hosting.users.block(blocked.id);
    const res = await t.http.get(`/api/v4/projects/${inSub.public}`).set('PRIVATE-TOKEN', blocked.token);
    expect([res.status, res.body]).toEqual([401, { message: '401 Unauthorized' }]);
  });

  it('gives a user owner access in its own namespace', async () => {
    const user = await callerOf();
    const [{ id: namespaceId }] = await run<{ id: number }>('select "id" from "namespaces" where "owner_id" = ?', [user.user!.id]);
    const own = await project(namespaceId, 'own', 'private');
    expect(await levelOf(user, own)).toBe(50);
    expect(await visibleTo(user, [own])).toEqual([own]);
    expect(await visibleTo(callers.nonMember, [own])).toEqual([]);
  });
});

describe('the access level and visibility of groups', () => {
  // Per visibility: a top group, its subgroup (a member of which sees the way down to it), and a project in the subgroup.
  const tops: Record<string, number> = {};
  const subs: Record<string, number> = {};
  const callers: Record<string, Caller> = {};

  beforeAll(async () => {
    callers.anonymous = ANONYMOUS;
    callers.nonMember = await callerOf();
    callers.external = await callerOf({ external: true });
    callers.admin = await callerOf({ admin: true });
    callers.topMaintainer = await callerOf();
    callers.topOwner = await callerOf();
    callers.subGuest = await callerOf();
    callers.projectReporter = await callerOf();
    for (const visibility of VISIBILITIES) {
      const top = await group(`gtop-${visibility}-${Date.now()}`, undefined, visibility);
      const sub = await group('sub', top, visibility);
      tops[visibility] = top.id;
      subs[visibility] = sub.id;
      const inside = await project(sub.id, 'inside', visibility);
      await member('group_members', 'group_id', top.id, callers.topMaintainer.user!.id, 40);
      await member('group_members', 'group_id', top.id, callers.topOwner.user!.id, 50);
      await member('group_members', 'group_id', sub.id, callers.subGuest.user!.id, 10);
      await member('project_members', 'project_id', inside, callers.projectReporter.user!.id, 20);
    }
  });

  async function scoped(caller: Caller, groupId: number): Promise<GroupInScope> {
    const [row] = await withRule<{ access_level: number; visible: boolean }>(
      sql`select ${groupAccessColumnsSql(caller, today(), 'g')} from "namespaces" g where g."id" = ${groupId}`,
    );
    return { group: { id: groupId } as Namespace, accessLevel: Number(row.access_level), visible: row.visible };
  }

  // [caller, on the top groups, on the subgroups]: per visibility (private, internal, public), r read_group and
  // a admin_group and admin_group_member.
  const table: [string, string, string][] = [
    ['anonymous', '- - r', '- - r'],
    ['nonMember', '- r r', '- r r'],
    ['external', '- - r', '- - r'],
    ['admin', 'ra ra ra', 'ra ra ra'],
    ['topMaintainer', 'r r r', 'r r r'],
    ['topOwner', 'ra ra ra', 'ra ra ra'],
    ['subGuest', 'r r r', 'r r r'],
    ['projectReporter', 'r r r', 'r r r'],
  ];

  it.each(table)('%s may: on the top groups %s; on the subgroups %s', async (name, onTop, onSub) => {
    for (const [groups, expected] of [
      [tops, onTop],
      [subs, onSub],
    ] as const) {
      const letters = expected.split(' ');
      for (const [index, visibility] of VISIBILITIES.entries()) {
        const resource = await scoped(callers[name], groups[visibility]);
        const answers = (['read_group', 'admin_group', 'admin_group_member'] as const).map(
          (ability) => `${ability} ${can(callers[name], ability, resource)}`,
        );
        const wanted = [
          `read_group ${letters[index].includes('r')}`,
          `admin_group ${letters[index].includes('a')}`,
          `admin_group_member ${letters[index].includes('a')}`,
        ];
        expect(`${visibility}: ${answers.join(', ')}`).toBe(`${visibility}: ${wanted.join(', ')}`);
        // The list's condition agrees with the one-group answer.
        const [{ visible }] = await withRule<{ visible: boolean }>(
          sql`select ${visibleGroupsSql(callers[name], today(), 'g')} as "visible" from "namespaces" g
            where g."id" = ${groups[visibility]}`,
        );
        expect(visible).toBe(letters[index].includes('r'));
      }
    }
  });

  it('answers an administrator the private groups over HTTP too', async () => {
    expect((await t.http.get(`/api/v4/groups/${tops.private}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(200);
    expect((await t.http.get(`/api/v4/groups/${tops.private}`)).status).toBe(404);
  });
});
