/**
 * Who may do what, decided in src/auth/ only: every policy's answers for each kind of caller and subject, held
 * against the checked-in table (test/policies.table.md), so that every change of who-may-do-what shows in review;
 * and no code outside src/auth/ compares access levels or reads whether the caller is an administrator.
 *
 * After a deliberate change of a policy: `FORGEKIT_WRITE_POLICY_TABLE=1 npx vitest run --config
 * test/vitest.config.ts test/policies.test.ts`, then read the table's diff.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { POLICIES } from '../src/auth/abilities.js';
import { ANONYMOUS, type Caller } from '../src/auth/caller.js';
import type { Policy } from '../src/auth/policy.js';
import type { IssueFacts } from '../src/auth/policies/issue.js';
import type { MergeRequestFacts } from '../src/auth/policies/merge-request.js';
import type { AccessToken, Namespace, Project, ProtectedBranch, Runner, RunnerType, User, Visibility } from '../src/db/entities/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const TABLE = join(root, 'test', 'policies.table.md');

/** A caller of a kind: a user row with only what the policies read. */
function callerOf(kind: { id?: number; admin?: boolean; external?: boolean; canCreateGroup?: boolean }): Caller {
  const user = {
    id: kind.id ?? 2,
    admin: kind.admin ?? false,
    external: kind.external ?? false,
    canCreateGroup: kind.canCreateGroup ?? true,
  } as User;
  return { user, scopes: null, token: null, privateToken: null };
}

const CALLERS: Record<string, Caller> = {
  anonymous: ANONYMOUS,
  user: callerOf({}),
  'user who may not create groups': callerOf({ canCreateGroup: false }),
  external: callerOf({ external: true, canCreateGroup: false }),
  administrator: callerOf({ admin: true }),
};
const LEVELS: [string, number][] = [
  ['no member', 0],
  ['guest', 10],
  ['reporter', 20],
  ['developer', 30],
  ['maintainer', 40],
  ['owner', 50],
];
const VISIBILITIES: Visibility[] = ['private', 'internal', 'public'];

/** Rows of one policy's table: who asks of what. */
type Row = [who: string, what: string, caller: Caller, subject: unknown];

const projectOf = (visibility: Visibility, level: number, archived = false) => ({
  project: { id: 1, visibility, archived } as Project,
  namespace: { id: 1 } as Namespace,
  accessLevel: level,
  projectAccess: null,
  groupAccess: null,
});

function projectRows(): Row[] {
  const rows: Row[] = [];
  for (const archived of [false, true]) {
    for (const visibility of VISIBILITIES) {
      const what = `${visibility}${archived ? ', archived' : ''}`;
      for (const name of ['anonymous', 'external', 'administrator'])
        rows.push([name, what, CALLERS[name], projectOf(visibility, 0, archived)]);
      for (const [level, value] of LEVELS) rows.push([level, what, CALLERS.user, projectOf(visibility, value, archived)]);
    }
  }
  // CI/CD (jobs) disabled: its environments refused, to its owner and administrators too.
  for (const [who, caller, level] of [
    ['owner', CALLERS.user, 50],
    ['administrator', CALLERS.administrator, 0],
  ] as const) {
    const scoped = projectOf('private', level);
    rows.push([who, 'private, jobs disabled', caller, { ...scoped, project: { ...scoped.project, jobsEnabled: false } as Project }]);
  }
  return rows;
}

const ROWS: Record<keyof typeof POLICIES, () => Row[]> = {
  global: () => Object.entries(CALLERS).map(([name, caller]): Row => [name, 'the instance', caller, null]),
  user: () => ['anonymous', 'user'].map((name): Row => [name, 'a user', CALLERS[name], { id: 3 } as User]),
  personalAccessToken: () => [
    ['user', 'its own token', CALLERS.user, { user: { id: 2 } } as AccessToken],
    ['user', "another's token", CALLERS.user, { user: { id: 3 } } as AccessToken],
    ['administrator', "another's token", CALLERS.administrator, { user: { id: 3 } } as AccessToken],
  ],
  namespace: () => {
    const user = { namespace: { kind: 'user' } as Namespace, member: false, accessLevel: 0 };
    const group = { namespace: { kind: 'group' } as Namespace, own: false };
    return [
      ['user', 'its own', CALLERS.user, { ...user, own: true }],
      ['user', "another user's", CALLERS.user, { ...user, own: false }],
      ['administrator', "a user's", CALLERS.administrator, { ...user, own: false }],
      ['user', 'a group, no member', CALLERS.user, { ...group, member: false, accessLevel: 0 }],
      ['user', 'a group, developer', CALLERS.user, { ...group, member: true, accessLevel: 30 }],
      ['user', 'a group, maintainer of a group above', CALLERS.user, { ...group, member: false, accessLevel: 40 }],
      ['user', 'a group, owner', CALLERS.user, { ...group, member: true, accessLevel: 50 }],
      ['administrator', 'a group', CALLERS.administrator, { ...group, member: false, accessLevel: 0 }],
    ];
  },
  group: () => {
    const groupOf = (visible: boolean, level: number) => ({ group: { id: 1 } as Namespace, visible, accessLevel: level });
    return [
      ['anyone', 'a group it may not see', CALLERS.user, groupOf(false, 0)],
      ['no member', 'a group it sees', CALLERS.user, groupOf(true, 0)],
      ...LEVELS.slice(1).map(([level, value]): Row => [level, 'a group (or one above)', CALLERS.user, groupOf(true, value)]),
      ['administrator', 'any group', CALLERS.administrator, groupOf(true, 0)],
    ];
  },
  project: projectRows,
  protectedBranch: () =>
    projectRows()
      .filter(([, what]) => what === 'private' || what === 'private, archived')
      .map(
        ([who, what, caller, project]): Row => [
          who,
          `a protection in a ${what} project`,
          caller,
          { protection: {} as ProtectedBranch, project },
        ],
      ),
  issue: () => {
    const issueOf = (facts: Partial<IssueFacts>): IssueFacts => ({
      authorId: 9,
      assigneeIds: [],
      confidential: false,
      discussionLocked: false,
      ...facts,
    });
    const rows: Row[] = [];
    for (const [who, what, caller, project] of projectRows().filter(([, what]) =>
      ['private', 'public', 'public, archived'].includes(what),
    )) {
      rows.push([who, `an issue of a ${what} project`, caller, { project, issue: issueOf({}) }]);
      rows.push([who, `a confidential issue of a ${what} project`, caller, { project, issue: issueOf({ confidential: true }) }]);
      rows.push([who, `a locked issue of a ${what} project`, caller, { project, issue: issueOf({ discussionLocked: true }) }]);
    }
    const publicProject = projectOf('public', 0);
    rows.push([
      'its author',
      'a confidential, locked issue of a public project',
      CALLERS.user,
      { project: publicProject, issue: issueOf({ authorId: 2, confidential: true, discussionLocked: true }) },
    ]);
    rows.push([
      'an assignee',
      'a confidential issue of a public project',
      CALLERS.user,
      { project: publicProject, issue: issueOf({ assigneeIds: [2], confidential: true }) },
    ]);
    rows.push([
      'anyone',
      'an issue of a public project whose issues are disabled',
      CALLERS.user,
      { project: { ...publicProject, project: { ...publicProject.project, issuesEnabled: false } }, issue: issueOf({}) },
    ]);
    return rows;
  },
  mergeRequest: () => {
    const requestOf = (facts: Partial<MergeRequestFacts>): MergeRequestFacts => ({
      authorId: 9,
      assigneeIds: [],
      discussionLocked: false,
      ...facts,
    });
    const rows: Row[] = [];
    for (const [who, what, caller, project] of projectRows().filter(([, what]) =>
      ['private', 'public', 'public, archived'].includes(what),
    )) {
      rows.push([who, `a merge request of a ${what} project`, caller, { project, mergeRequest: requestOf({}) }]);
      rows.push([
        who,
        `a locked merge request of a ${what} project`,
        caller,
        { project, mergeRequest: requestOf({ discussionLocked: true }) },
      ]);
    }
    const publicProject = projectOf('public', 0);
    rows.push([
      'its author',
      'a merge request of a public project',
      CALLERS.user,
      { project: publicProject, mergeRequest: requestOf({ authorId: 2 }) },
    ]);
    rows.push([
      'an assignee',
      'a merge request of a public project',
      CALLERS.user,
      { project: publicProject, mergeRequest: requestOf({ assigneeIds: [2] }) },
    ]);
    rows.push([
      'anyone',
      'a merge request of a public project whose merge requests are disabled',
      CALLERS.user,
      { project: { ...publicProject, project: { ...publicProject.project, mergeRequestsEnabled: false } }, mergeRequest: requestOf({}) },
    ]);
    return rows;
  },
  note: () => {
    const issue = (level: number, archived = false) => ({
      kind: 'Issue' as const,
      scope: {
        project: projectOf('public', level, archived),
        issue: { authorId: 9, assigneeIds: [], confidential: false, discussionLocked: false },
      },
    });
    const mergeRequest = (visibility: Visibility, level: number) => ({
      kind: 'MergeRequest' as const,
      scope: { project: projectOf(visibility, level), mergeRequest: { authorId: 9, assigneeIds: [], discussionLocked: false } },
    });
    const rows: Row[] = [];
    for (const [who, level] of LEVELS)
      rows.push([
        who,
        "another's note on a public project's issue",
        CALLERS.user,
        { noteable: issue(level), note: { authorId: 9, system: false } },
      ]);
    rows.push(['its author', 'its note', CALLERS.user, { noteable: issue(0), note: { authorId: 2, system: false } }]);
    rows.push([
      'its author',
      'its note, in an archived project',
      CALLERS.user,
      { noteable: issue(0, true), note: { authorId: 2, system: false } },
    ]);
    rows.push(['maintainer', 'a system note', CALLERS.user, { noteable: issue(40), note: { authorId: 2, system: true } }]);
    rows.push(['administrator', "another's note", CALLERS.administrator, { noteable: issue(0), note: { authorId: 9, system: false } }]);
    for (const [who, level] of LEVELS)
      rows.push([
        who,
        "another's note on a private project's merge request",
        CALLERS.user,
        { noteable: mergeRequest('private', level), note: { authorId: 9, system: false } },
      ]);
    return rows;
  },
  awardEmoji: () => {
    const issue = (visibility: Visibility, level: number) => ({
      kind: 'Issue' as const,
      scope: {
        project: projectOf(visibility, level),
        issue: { authorId: 9, assigneeIds: [], confidential: false, discussionLocked: false },
      },
    });
    return [
      ['its awarder', "its award on a public project's issue", CALLERS.user, { awardable: issue('public', 0), award: { userId: 2 } }],
      ['maintainer', "another's award on a public project's issue", CALLERS.user, { awardable: issue('public', 40), award: { userId: 9 } }],
      ['administrator', "another's award", CALLERS.administrator, { awardable: issue('private', 0), award: { userId: 9 } }],
      [
        'its awarder, no longer a member',
        "its award on a private project's issue",
        CALLERS.user,
        { awardable: issue('private', 0), award: { userId: 2 } },
      ],
    ];
  },
  runner: () => {
    const scopedRunner = (
      runnerType: RunnerType,
      facts: { owned?: boolean; administersAll?: boolean; projectCount?: number; locked?: boolean } = {},
    ) => ({
      runner: { id: 1, runnerType, locked: facts.locked ?? false } as Runner,
      owned: facts.owned ?? false,
      administersAll: facts.administersAll ?? false,
      projectCount: facts.projectCount ?? (runnerType === 'project_type' ? 1 : 0),
    });
    const mine = { owned: true, administersAll: true };
    return [
      ['anonymous', 'a shared runner', ANONYMOUS, scopedRunner('instance_type')],
      ['user', 'a shared runner', CALLERS.user, scopedRunner('instance_type')],
      ['administrator', 'a shared runner', CALLERS.administrator, scopedRunner('instance_type')],
      ['user', "another's specific runner", CALLERS.user, scopedRunner('project_type')],
      ['owner', 'a specific runner of its project', CALLERS.user, scopedRunner('project_type', mine)],
      ['owner', 'a locked specific runner of its project', CALLERS.user, scopedRunner('project_type', { ...mine, locked: true })],
      ['owner', 'a specific runner of two projects, both its', CALLERS.user, scopedRunner('project_type', { ...mine, projectCount: 2 })],
      ['owner', 'a specific runner of two projects, one its', CALLERS.user, scopedRunner('project_type', { owned: true, projectCount: 2 })],
      ['owner', 'a group runner of its group', CALLERS.user, scopedRunner('group_type', mine)],
      ['user', "another group's runner", CALLERS.user, scopedRunner('group_type')],
      [
        'administrator',
        "another's locked runner of two projects",
        CALLERS.administrator,
        scopedRunner('project_type', { locked: true, projectCount: 2 }),
      ],
    ];
  },
};

/** One policy's table in Markdown: a row per caller and subject, a column per ability, 404 where a refusal hides the subject. */
function tableOf(name: string, policy: Policy<unknown, string>, rows: Row[]): string {
  const header = `| caller | subject | ${policy.abilities.join(' | ')} |`;
  const rule = `| --- | --- | ${policy.abilities.map(() => '---').join(' | ')} |`;
  const lines = rows.map(([who, what, caller, subject]) => {
    const cells = policy.abilities.map((ability) =>
      policy.allows(caller, ability, subject) ? 'yes' : policy.hides(caller, ability, subject) ? '404' : '-',
    );
    return `| ${who} | ${what} | ${cells.join(' | ')} |`;
  });
  return [`## ${name}`, '', header, rule, ...lines].join('\n');
}

function policyTable(): string {
  const intro = [
    '# Who may do what',
    '',
    'Written by test/policies.test.ts from the policies in src/auth/policies/: `yes` allowed, `-` refused (403),',
    '`404` refused as if the subject did not exist. Change it by changing a policy, then write it again (see the test).',
  ].join('\n');
  const tables = (Object.keys(POLICIES) as (keyof typeof POLICIES)[]).map((name) =>
    tableOf(name, POLICIES[name] as Policy<unknown, string>, ROWS[name]()),
  );
  return `${[intro, ...tables].join('\n\n')}\n`;
}

describe('the policies', () => {
  it('answer as the checked-in table says', () => {
    const table = policyTable();
    if (process.env.FORGEKIT_WRITE_POLICY_TABLE) writeFileSync(TABLE, table);
    expect(table).toBe(readFileSync(TABLE, 'utf8'));
  });

  it(
    'are the only code that decides: nothing outside src/auth/ names or compares access levels or asks whether the caller is an ' +
      'administrator',
    () => {
      // The levels themselves (src/auth/levels.ts names the rules on them), comparisons of levels in any spelling
      // (`accessLevel`, `pushAccessLevel`, `access_level`), and reads of the caller's administrator flag (a presenter
      // writing `is_admin` is data, not a decision).
      const DECISIONS = [
        /\bisAdmin\b/,
        /\b(caller|currentUser)(\.user)?\??\.(admin|external|canCreateGroup)\b/,
        /\bACCESS_LEVELS\b/,
        /(accessLevel|AccessLevel|access_level)\b\)?\s*(===?|!==?|[<>]=?)\s*[\w$]/,
        /[\w)]\s*(===?|!==?|[<>]=?)\s*[\w.?]*(accessLevel|AccessLevel|access_level)\b/,
      ];
      const src = join(root, 'src');
      const offenders: string[] = [];
      for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
        const path = join(entry.parentPath, entry.name);
        if (!entry.isFile() || !path.endsWith('.ts') || relative(src, path).startsWith('auth')) continue;
        readFileSync(path, 'utf8')
          .split('\n')
          .forEach((line, index) => {
            if (DECISIONS.some((pattern) => pattern.test(line))) offenders.push(`${relative(root, path)}:${index + 1}: ${line.trim()}`);
          });
      }
      expect(offenders).toEqual([]);
    },
  );
});
