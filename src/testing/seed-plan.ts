import { CREATOR_LEVELS, isGroupCreatorLevel, isMemberLevel } from '../auth/levels.js';
import { generateToken, hashPassword, tokenDigest } from '../auth/secrets.js';
import { type Visibility, visibilityRank } from '../db/entities/index.js';
import { BadRequestError, type ValidationMessages } from '../errors.js';
import { DEFAULT_BRANCH } from '../git/store.js';
import type { SeedDescription, SeedIssue, SeedMember, SeedMergeRequest, SeedMilestone, SeedProject, SeedGroup } from '../schemas/seed.js';
import type { Context } from '../services/context.js';
import {
  checkEmail,
  checkName,
  checkNamespacePath,
  checkPassword,
  checkUsername,
  Problems,
  TAKEN,
} from '../services/identity/user-validation.js';
import { checkNameAndPath, pathFromName } from '../services/projects/project-rules.js';
import { isValidBranchName } from '../services/repository/branch-protection.js';
import { normalizeLabelColor, strip } from '../services/work-items/label-colors.js';
import { DEFAULT_LABEL_COLOR } from '../services/work-items/label-store.js';
import { namespacesNamed, reserveIds, takenAccounts, takenProjectNames, takenSiblings, usersNamed } from './seed-store.js';

// A seed checked whole before anything is written (src/testing/seed.ts): every reference resolved, the seed's own items
// and the instance's, and every rule the API applies to what it makes (names and paths, what is taken, visibility,
// memberships' levels, projects limits); its IDs reserved, so that rows that refer to one another are written a table at
// a time. Every problem is answered at once, each named by its attribute's path.

/** A group's deepest nesting, as the groups API bounds it. */
const MAX_GROUP_DEPTH = 20;

/** A group's name, as the groups API checks it (src/services/projects/groups.ts). */
const GROUP_NAME_RULE = /^[\p{L}\p{N}\u{00A9}-\u{1f9c0}_][\p{L}\p{N}\p{Pd}\u{00A9}-\u{1f9c0}_(). ]*$/u;
const GROUP_NAME_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";

/** The scopes of a seeded user's token when none are given. */
const DEFAULT_TOKEN_SCOPES = ['api'];

/** A user a seed item names: one of the seed's, or the instance's. */
export interface UserRef {
  id: number;
  username: string;
  name: string;
  email: string;
}

/** A namespace a seed item names, as the checks read it. */
export interface NamespaceRef {
  id: number;
  kind: 'user' | 'group';
  fullPath: string;
  fullName: string;
  visibility: Visibility;
  traversalIds: number[];
  /** A user's namespace's user. */
  ownerId: number | null;
  /** Made by this seed. */
  seeded: boolean;
}

export interface PlannedUser extends UserRef {
  passwordHash: string | null;
  admin: boolean;
  external: boolean;
  projectsLimit: number;
  namespace: NamespaceRef;
  token: string;
  scopes: string[];
}

/** A membership to write. */
export interface PlannedMember {
  userId: number;
  accessLevel: number;
}

export interface PlannedGroup {
  index: number;
  input: SeedGroup;
  ref: NamespaceRef;
  name: string;
  parentId: number | null;
  /** Its runners' registration token. */
  token: string;
  members: PlannedMember[];
}

export interface PlannedProject {
  /** Its place in the seed's `projects`. */
  index: number;
  input: SeedProject;
  id: number;
  name: string;
  path: string;
  namespace: NamespaceRef;
  visibility: Visibility;
  creatorId: number;
  storage: string;
  /** HEAD's branch in its new repository. */
  headBranch: string;
  runnersToken: string;
  members: PlannedMember[];
  /** By title: those it lists, then those its work items name that it lacks (made as the issues API makes them). */
  labels: Map<string, { id: number; color: string; description: string | null; priority: number | null }>;
  /** By title, with the iids they take. */
  milestones: Map<string, { id: number; iid: number; input: SeedMilestone }>;
}

/** A seed checked: what to write, with the IDs reserved for the rows that refer to one another. */
export interface SeedPlan {
  users: PlannedUser[];
  groups: PlannedGroup[];
  projects: PlannedProject[];
  /** The user a username names (checked already); the acting user (root) for none. */
  user(username: string | undefined): UserRef;
  /** That user's ID. */
  userId(username: string | undefined): number;
  /** The IDs of the users the usernames name, each once, in order. */
  userIds(usernames: string[] | undefined): number[];
  /** Where the seed lists a group's or a project's member: `groups[0][members][1]`. */
  memberPath(kind: 'group' | 'project', sourceId: number, userId: number): string;
}

/** Labels' names as the issues API takes them: stripped, blank ones dropped, each once. */
export const labelNames = (names: string[] | undefined) => [...new Set((names ?? []).map(strip).filter((name) => name !== ''))];

/** The seed checked as root in the seed's transaction (`ctx`); a BadRequestError naming every problem otherwise. */
export async function planSeed(ctx: Context, input: SeedDescription): Promise<SeedPlan> {
  const planner = new SeedPlanner(ctx, input);
  await planner.readReferences();
  await planner.planUsers();
  planner.throwIfAny();
  await planner.planGroups();
  planner.throwIfAny();
  await planner.planProjects();
  planner.throwIfAny();
  return planner.plan;
}

class SeedPlanner {
  private readonly problems = new Problems();
  private readonly users = new Map<string, UserRef>();
  private readonly namespaces = new Map<string, NamespaceRef>();
  /** Users' projects limits, by their namespaces' IDs, and how many projects those hold as the seed fills them. */
  private readonly limits = new Map<number, { limit: number; count: number }>();
  private readonly memberPaths = new Map<string, string>();
  readonly plan: SeedPlan;

  constructor(
    private readonly ctx: Context,
    private readonly input: SeedDescription,
  ) {
    const actor = ctx.currentUser;
    this.plan = {
      users: [],
      groups: [],
      projects: [],
      user: (username) => (username === undefined ? actor : this.users.get(username.toLowerCase())!),
      userId: (username) => this.plan.user(username).id,
      userIds: (usernames) => [...new Set((usernames ?? []).map((username) => this.plan.userId(username)))],
      memberPath: (kind, sourceId, userId) => this.memberPaths.get(`${kind}/${sourceId}/${userId}`)!,
    };
  }

  throwIfAny(): void {
    if (this.problems.any) throw new BadRequestError(this.problems.messages as ValidationMessages);
  }

  /** A check's problems, which name its own attributes (`username`), under `prefix`. */
  private at(prefix: string, check: (problems: Problems) => void): void {
    const scratch = new Problems();
    check(scratch);
    for (const [name, list] of Object.entries(scratch.messages))
      for (const message of list as string[]) this.problems.add(`${prefix}[${name}]`, message);
  }

  // ---- references ----

  /** Every user and namespace the seed names that it does not make, read in two statements. */
  async readReferences(): Promise<void> {
    const input = this.input;
    const usernames = new Set<string>([this.ctx.currentUser.username.toLowerCase()]);
    const add = (name: string | undefined) => {
      if (name !== undefined) usernames.add(name.toLowerCase());
    };
    const workItems = (list: (SeedIssue | SeedMergeRequest)[] | undefined) => {
      for (const item of list ?? []) {
        add(item.author);
        for (const assignee of item.assignees ?? []) add(assignee);
        for (const note of item.notes ?? []) add(note.author);
      }
    };
    for (const group of input.groups ?? []) for (const member of group.members ?? []) add(member.user);
    for (const project of input.projects ?? []) {
      for (const member of project.members ?? []) add(member.user);
      for (const commit of project.commits ?? []) add(commit.author);
      workItems(project.issues);
      workItems(project.merge_requests);
    }
    for (const user of await usersNamed(this.ctx.em, [...usernames]))
      this.users.set(String(user.username).toLowerCase(), user as unknown as UserRef);
    const paths = new Set<string>([this.ctx.currentUser.username.toLowerCase()]);
    for (const named of [
      ...(input.groups ?? []).map((group) => group.parent),
      ...(input.projects ?? []).map((project) => project.namespace),
    ])
      if (named !== undefined) paths.add(named.toLowerCase());
    for (const row of await namespacesNamed(this.ctx.em, [...paths])) {
      const ref: NamespaceRef = {
        id: Number(row.id),
        kind: row.kind as 'user' | 'group',
        fullPath: String(row.full_path),
        fullName: String(row.full_name),
        visibility: row.visibility as Visibility,
        traversalIds: (row.traversal_ids as number[]).map(Number),
        ownerId: row.owner_id === null ? null : Number(row.owner_id),
        seeded: false,
      };
      this.namespaces.set(ref.fullPath.toLowerCase(), ref);
      if (ref.ownerId !== null) this.limits.set(ref.id, { limit: Number(row.projects_limit), count: Number(row.projects) });
    }
  }

  /** The user `username` names (the acting user for none), or a problem at `path` and undefined. */
  private user(username: string | undefined, path: string): UserRef | undefined {
    if (username === undefined) return this.ctx.currentUser as UserRef;
    const user = this.users.get(username.toLowerCase());
    if (!user) this.problems.add(path, 'does not name a user of the seed or of the instance');
    return user;
  }

  // ---- users ----

  async planUsers(): Promise<void> {
    const list = this.input.users ?? [];
    if (!list.length) return;
    const settings = await this.ctx.settings();
    const accounts = list.map((user) => ({
      ...user,
      lower: user.username.toLowerCase(),
      name: user.name ?? user.username,
      // Stored lower-cased, as the users API stores them.
      email: (user.email ?? `${user.username}@example.com`).toLowerCase(),
      token: user.token ?? generateToken(),
    }));
    const digests = accounts.map((user) => tokenDigest(user.token));
    const taken = await takenAccounts(this.ctx.em, {
      usernames: accounts.map((user) => user.lower),
      emails: accounts.map((user) => user.email),
      digests,
    });
    const ids = await reserveIds(this.ctx.em, 'users', list.length);
    const namespaceIds = await reserveIds(this.ctx.em, 'namespaces', list.length);
    const hashes = await Promise.all(accounts.map((user) => (user.password === undefined ? null : hashPassword(user.password))));
    for (const [index, user] of accounts.entries()) {
      this.at(`users[${index}]`, (problems) => {
        checkUsername(problems, user.username);
        checkName(problems, user.name);
        checkEmail(problems, user.email);
        if (user.password !== undefined) checkPassword(problems, user.password);
        if (taken.usernames.has(user.lower) || this.users.has(user.lower)) problems.add('username', TAKEN);
        if (taken.emails.has(user.email)) problems.add('email', TAKEN);
        if (taken.digests.has(digests[index])) problems.add('token', TAKEN);
      });
      taken.usernames.add(user.lower);
      taken.emails.add(user.email);
      taken.digests.add(digests[index]);
      const namespace: NamespaceRef = {
        id: namespaceIds[index],
        kind: 'user',
        fullPath: user.username,
        fullName: user.name,
        visibility: 'private',
        traversalIds: [namespaceIds[index]],
        ownerId: ids[index],
        seeded: true,
      };
      this.namespaces.set(user.lower, namespace);
      // An external user makes no projects of its own, as the users API has it.
      const projectsLimit = user.external ? 0 : settings.default_projects_limit;
      this.limits.set(namespace.id, { limit: projectsLimit, count: 0 });
      const planned: PlannedUser = {
        id: ids[index],
        username: user.username,
        name: user.name,
        email: user.email,
        passwordHash: hashes[index],
        admin: user.admin ?? false,
        external: user.external ?? false,
        projectsLimit,
        namespace,
        token: user.token,
        scopes: [...new Set(user.token_scopes ?? DEFAULT_TOKEN_SCOPES)],
      };
      this.users.set(user.lower, planned);
      this.plan.users.push(planned);
    }
  }

  // ---- groups ----

  async planGroups(): Promise<void> {
    const list = this.input.groups ?? [];
    if (!list.length) return;
    const settings = await this.ctx.settings();
    const ids = await reserveIds(this.ctx.em, 'namespaces', list.length);
    // Each group's place first, in order: a parent is a group made earlier in the seed, or one of the instance's.
    const placed = list.map((group, index) => {
      const parent = group.parent === undefined ? null : this.groupNamed(group.parent, `groups[${index}][parent]`);
      if (group.parent !== undefined && !parent) return null;
      const name = group.name ?? group.path;
      const ref: NamespaceRef = {
        id: ids[index],
        kind: 'group',
        fullPath: parent ? `${parent.fullPath}/${group.path}` : group.path,
        fullName: parent ? `${parent.fullName} / ${name}` : name,
        visibility: group.visibility ?? (settings.default_group_visibility as Visibility),
        traversalIds: [...(parent?.traversalIds ?? []), ids[index]],
        ownerId: null,
        seeded: true,
      };
      if (!this.namespaces.has(ref.fullPath.toLowerCase())) this.namespaces.set(ref.fullPath.toLowerCase(), ref);
      return { group, parent, name, ref };
    });
    // Siblings the instance has (at the top level, users' namespaces too), and the seed's users' namespaces.
    const siblings = await takenSiblings(
      this.ctx.em,
      placed.flatMap((entry) =>
        entry && !entry.parent?.seeded
          ? [{ parent_id: entry.parent?.id ?? 0, path: entry.group.path.toLowerCase(), name: entry.name }]
          : [],
      ),
    );
    for (const user of this.plan.users) {
      siblings.paths.add(`0/${user.username.toLowerCase()}`);
      siblings.names.add(`0/${user.username}`);
    }
    for (const [index, entry] of placed.entries()) {
      if (!entry) continue;
      const { group, parent, name, ref } = entry;
      const at = `groups[${index}]`;
      const parentKey = parent?.id ?? 0;
      this.at(at, (problems) => {
        if (name.trim() === '') problems.add('name', "can't be blank");
        else if (!GROUP_NAME_RULE.test(name)) problems.add('name', GROUP_NAME_MESSAGE);
        else if (siblings.names.has(`${parentKey}/${name}`)) problems.add('name', TAKEN);
        checkNamespacePath(problems, 'path', group.path, parent === null);
        if (!problems.messages.path && siblings.paths.has(`${parentKey}/${group.path.toLowerCase()}`)) problems.add('path', TAKEN);
        if (parent && parent.traversalIds.length >= MAX_GROUP_DEPTH) problems.add('parent', 'has too deep level of nesting');
        if (parent && visibilityRank(ref.visibility) > visibilityRank(parent.visibility))
          problems.add('visibility', `${ref.visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`);
      });
      siblings.names.add(`${parentKey}/${name}`);
      siblings.paths.add(`${parentKey}/${group.path.toLowerCase()}`);
      const members = this.members('group', ref.id, group.members, `${at}[members]`);
      // A group always has an owner, its own or a parent's: a top-level group that lists none gets the acting user (root),
      // as the groups API makes its creator its owner.
      if (!parent && !members.some((member) => isGroupCreatorLevel(member.accessLevel))) {
        const actor = this.ctx.currentUser.id;
        if (members.some((member) => member.userId === actor))
          this.problems.add(`${at}[members]`, 'lists no owner: a group keeps one (root, when it is not listed)');
        else {
          members.unshift({ userId: actor, accessLevel: CREATOR_LEVELS.group });
          this.memberPaths.set(`group/${ref.id}/${actor}`, `${at}[members]`);
        }
      }
      this.plan.groups.push({ index, input: group, ref, name, parentId: parent?.id ?? null, token: generateToken(), members });
    }
  }

  /** The group `fullPath` names, of the seed (made earlier in it) or of the instance; else a problem at `path`. */
  private groupNamed(fullPath: string, path: string): NamespaceRef | null {
    const found = this.namespaces.get(fullPath.toLowerCase());
    if (found?.kind === 'group') return found;
    this.problems.add(path, 'does not name a group made earlier in the seed, nor one of the instance');
    return null;
  }

  /** A list of memberships checked (users that exist, levels the source takes, each user once), as rows to write. */
  private members(kind: 'project' | 'group', sourceId: number, list: SeedMember[] | undefined, at: string): PlannedMember[] {
    const members: PlannedMember[] = [];
    for (const [index, member] of (list ?? []).entries()) {
      const path = `${at}[${index}]`;
      const user = this.user(member.user, `${path}[user]`);
      if (!isMemberLevel(kind, member.access_level)) this.problems.add(`${path}[access_level]`, 'is not included in the list');
      if (!user) continue;
      if (members.some((other) => other.userId === user.id)) this.problems.add(`${path}[user]`, 'is a member already');
      members.push({ userId: user.id, accessLevel: member.access_level });
      this.memberPaths.set(`${kind}/${sourceId}/${user.id}`, path);
    }
    return members;
  }

  // ---- projects ----

  async planProjects(): Promise<void> {
    const list = this.input.projects ?? [];
    if (!list.length) return;
    const settings = await this.ctx.settings();
    const ids = await reserveIds(this.ctx.em, 'projects', list.length);
    const actorNamespace = this.namespaces.get(this.ctx.currentUser.username.toLowerCase())!;
    const namespaces = list.map((project, index) =>
      project.namespace === undefined ? actorNamespace : this.namespaceNamed(project.namespace, `projects[${index}][namespace]`),
    );
    const taken = await takenProjectNames(this.ctx.em, [
      ...new Set(namespaces.flatMap((namespace) => (namespace && !namespace.seeded ? [namespace.id] : []))),
    ]);
    for (const [index, project] of list.entries()) {
      const at = `projects[${index}]`;
      const namespace = namespaces[index];
      const name = project.name ?? project.path;
      if (name === undefined) {
        this.problems.add(`${at}[name]`, "can't be blank: give a name or a path");
        continue;
      }
      const path = project.path ?? pathFromName(name);
      const visibility = project.visibility ?? (settings.default_project_visibility as Visibility);
      this.at(at, (problems) => {
        checkNameAndPath(problems, name, path);
        if (namespace && taken.names.has(`${namespace.id}/${name.toLowerCase()}`)) problems.add('name', TAKEN);
        if (namespace && taken.paths.has(`${namespace.id}/${path.toLowerCase()}`)) problems.add('path', TAKEN);
        if (namespace?.kind === 'group' && visibilityRank(visibility) > visibilityRank(namespace.visibility))
          problems.add('visibility', `${visibility} is not allowed in a ${namespace.visibility} group.`);
        if (project.default_branch !== undefined && !isValidBranchName(project.default_branch))
          problems.add('default_branch', 'is invalid');
      });
      if (!namespace) continue;
      taken.names.add(`${namespace.id}/${name.toLowerCase()}`);
      taken.paths.add(`${namespace.id}/${path.toLowerCase()}`);
      this.checkLimit(namespace, `${at}[namespace]`);
      const members = this.members('project', ids[index], project.members, `${at}[members]`);
      // As the projects API makes them: a user's namespace's user is its projects' maintainer, unless listed otherwise.
      const owner = namespace.ownerId;
      if (owner !== null && !members.some((member) => member.userId === owner)) {
        members.unshift({ userId: owner, accessLevel: CREATOR_LEVELS.project });
        this.memberPaths.set(`project/${ids[index]}/${owner}`, `${at}[namespace]`);
      }
      const planned: PlannedProject = {
        index,
        input: project,
        id: ids[index],
        name,
        path,
        namespace,
        visibility,
        creatorId: owner ?? this.ctx.currentUser.id,
        storage: settings.repository_storages[Math.floor(Math.random() * settings.repository_storages.length)],
        headBranch: project.default_branch ?? DEFAULT_BRANCH,
        runnersToken: generateToken(),
        members,
        labels: new Map(),
        milestones: new Map(),
      };
      this.plan.projects.push(planned);
      this.planLabels(planned, at);
      this.planMilestones(planned, at);
      for (const [number, commit] of (project.commits ?? []).entries()) this.user(commit.author, `${at}[commits][${number}][author]`);
      this.planWorkItems(planned, project.issues, `${at}[issues]`);
      this.planWorkItems(planned, project.merge_requests, `${at}[merge_requests]`);
    }
  }

  /** The namespace `fullPath` names (a username, a group's full path), or a problem at `path`. */
  private namespaceNamed(fullPath: string, path: string): NamespaceRef | null {
    const found = this.namespaces.get(fullPath.toLowerCase());
    if (!found) this.problems.add(path, 'does not name a user or a group of the seed or of the instance');
    return found ?? null;
  }

  /** A user's `projects_limit` bounds the projects in its namespace, as the projects API has it. */
  private checkLimit(namespace: NamespaceRef, path: string): void {
    const limit = this.limits.get(namespace.id);
    if (!limit) return;
    if (limit.limit === 0)
      this.problems.add(path, 'Personal project creation is not allowed. Please contact your administrator with questions');
    else if (limit.count >= limit.limit)
      this.problems.add(path, `Your project limit is ${limit.limit} projects! Please contact your administrator to increase it`);
    limit.count++;
  }

  /** Its labels, as the labels API checks them. */
  private planLabels(project: PlannedProject, at: string): void {
    for (const [index, label] of (project.input.labels ?? []).entries()) {
      const title = strip(label.name);
      const color = normalizeLabelColor(label.color ?? DEFAULT_LABEL_COLOR);
      const path = `${at}[labels][${index}]`;
      if (color === null) this.problems.add(`${path}[color]`, 'must be a valid color code');
      if (title === '') this.problems.add(`${path}[name]`, "can't be blank");
      else if (!/^[^,]+$/.test(title)) this.problems.add(`${path}[name]`, 'is invalid');
      else if (project.labels.has(title)) this.problems.add(`${path}[name]`, TAKEN);
      project.labels.set(title, {
        id: 0,
        color: color ?? DEFAULT_LABEL_COLOR,
        description: label.description ?? null,
        priority: label.priority ?? null,
      });
    }
  }

  /** Its milestones, as the milestones API checks them; their iids in the order given. */
  private planMilestones(project: PlannedProject, at: string): void {
    for (const [index, milestone] of (project.input.milestones ?? []).entries()) {
      const title = strip(milestone.title);
      const path = `${at}[milestones][${index}]`;
      if (title === '') this.problems.add(`${path}[title]`, "can't be blank");
      else if (project.milestones.has(title)) this.problems.add(`${path}[title]`, TAKEN);
      if (milestone.start_date && milestone.due_date && milestone.due_date <= milestone.start_date)
        this.problems.add(`${path}[due_date]`, 'must be greater than start date');
      project.milestones.set(title, { id: 0, iid: project.milestones.size + 1, input: milestone });
    }
  }

  /** An issue's or a merge request's references: its people, its milestone; the labels it names that the project lacks are made. */
  private planWorkItems(project: PlannedProject, items: (SeedIssue | SeedMergeRequest)[] | undefined, at: string): void {
    for (const [index, item] of (items ?? []).entries()) {
      const path = `${at}[${index}]`;
      if (item.title.trim() === '') this.problems.add(`${path}[title]`, "can't be blank");
      this.user(item.author, `${path}[author]`);
      for (const [number, assignee] of (item.assignees ?? []).entries()) this.user(assignee, `${path}[assignees][${number}]`);
      if (item.milestone !== undefined && !project.milestones.has(strip(item.milestone)))
        this.problems.add(`${path}[milestone]`, 'does not name a milestone of the project');
      for (const name of labelNames(item.labels))
        if (!project.labels.has(name)) project.labels.set(name, { id: 0, color: DEFAULT_LABEL_COLOR, description: null, priority: null });
      for (const [number, note] of (item.notes ?? []).entries()) {
        this.user(note.author, `${path}[notes][${number}][author]`);
        if (note.body.trim() === '') this.problems.add(`${path}[notes][${number}][body]`, "can't be blank");
      }
    }
  }
}
