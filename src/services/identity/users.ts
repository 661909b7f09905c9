import { findUserByIdOrUsername } from './user-store.js';
import { projectsAsEventsName } from '../projects/project-store.js';
import type { EventData } from '../../events/kinds.js';
import { can } from '../../auth/abilities.js';
import { randomBytes } from 'node:crypto';
import type { FilterQuery } from '@mikro-orm/core';
import { hashPassword } from '../../auth/secrets.js';
import { CommitNote, CustomAttribute, Email, Identity, Namespace, Project, User, UserAvatar } from '../../db/entities/index.js';
import { takenAttribute } from '../../db/unique.js';
import { BadRequestError, ConflictError, NotFoundError, NotFoundValidationError } from '../../errors.js';
import type { RawFile } from '../../schemas/common.js';
import type {
  CreateUserInput,
  ListUsersQuery,
  UpdateUserInput,
  UserBasic,
  UserFull,
  UserProfile,
  UserSelf,
  UserWithPrivateToken,
} from '../../schemas/users.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { createUserNamespace, setTraversalIds } from '../projects/namespaces.js';
import { likePattern } from '../search.js';
import { presentCurrentUser, presentUser, presentUserFull, presentUsers, USER_BASIC_FIELDS } from '../present/users.js';
import { checkAvatar, checkEmail, checkName, checkPassword, checkUsername, Problems, TAKEN } from './user-validation.js';
import { Service } from '../service.js';
import { AccessTokensService } from './tokens.js';
import { NamespacesService } from '../projects/namespaces.js';

/** A user's namespace path is its username: a namespace path lost to a concurrent writer is the username. */
const usernameFor = (attribute: string | undefined) => (attribute === 'path' ? 'username' : attribute);

/** POST /users with a taken username or address: `409 {"message":"Email has already been taken"}`. */
const takenConflict = (attribute: string) => new ConflictError(`${attribute === 'email' ? 'Email' : 'Username'} ${TAKEN}`);

/**
 * An external user creates no project of its own nor a top-level group, as in the original (which sets both when
 * a user becomes external; an administrator may raise them again afterwards). Projects and subgroups in groups
 * it is given a role in stay open to it.
 */
function withExternalRights(user: User): void {
  user.projectsLimit = 0;
  user.canCreateGroup = false;
}

export class UsersService extends Service {
  /** The user, by ID (or by username where a route takes either). */
  findByIdOrUsername(idOrUsername: number | string): Promise<User | null> {
    return findUserByIdOrUsername(this.em, idOrUsername);
  }

  /** Administrators' parameters reach here only from administrators (the route table's `AdminOnly`). */
  async list(query: ListUsersQuery & PageQuery): Promise<Page<UserBasic | UserFull>> {
    const admin = can(this.ctx.caller, 'read_all_resources');
    const where: FilterQuery<User>[] = [];
    if (query.active === true) where.push({ state: 'active' });
    if (query.blocked === true) where.push({ state: 'blocked' });
    if (query.username !== undefined) where.push({ usernameLower: query.username.toLowerCase() });
    if (query.search) {
      const pattern = likePattern(query.search);
      // Addresses are private: a normal caller finds a user by e-mail only by giving the whole address.
      const email = admin ? { email: { $ilike: pattern } } : { email: query.search.toLowerCase() };
      where.push({ $or: [{ name: { $ilike: pattern } }, { username: { $ilike: pattern } }, email] });
    }
    if (query.created_before) where.push({ createdAt: { $lt: new Date(query.created_before) } });
    if (query.created_after) where.push({ createdAt: { $gt: new Date(query.created_after) } });
    if (query.external === true) where.push({ external: true });
    if (query.admins === true) where.push({ admin: true });
    if (query.two_factor !== undefined) where.push({ twoFactorEnabled: query.two_factor === 'enabled' });
    // Subqueries: the list stays one query however many users match.
    if (query.extern_uid !== undefined && query.provider !== undefined) {
      const identities = this.em
        .createQueryBuilder(Identity, 'i')
        .select('i.user')
        .where({ provider: query.provider, externUid: query.extern_uid });
      where.push({ id: { $in: identities.getNativeQuery() } });
    }
    if (query.custom_attributes) {
      for (const [key, value] of Object.entries(query.custom_attributes)) {
        const matches = this.em.createQueryBuilder(CustomAttribute, 'a').select('a.user').where({ key, value });
        where.push({ id: { $in: matches.getNativeQuery() } });
      }
    }
    const orderField = { id: 'id', name: 'name', username: 'username', created_at: 'createdAt', updated_at: 'updatedAt' }[
      query.order_by ?? 'id'
    ];
    const direction: 'asc' | 'desc' = query.sort === 'asc' ? 'asc' : 'desc';
    const orderBy = orderField === 'id' ? { id: direction } : { [orderField]: direction, id: direction };
    const view = await this.ctx.view();
    const fields = admin ? undefined : USER_BASIC_FIELDS;
    const page = await findPage(this.em, User, where.length ? { $and: where } : {}, orderBy, query, { plainRows: true, fields });
    return { ...page, items: await presentUsers(page.items, view, { withCustomAttributes: query.with_custom_attributes }) };
  }

  /** One user, as the caller may see it. */
  async present(user: User, options: { with_custom_attributes?: boolean } = {}): Promise<UserProfile | UserFull> {
    return presentUser(user, await this.ctx.view(), { withCustomAttributes: options.with_custom_attributes });
  }

  /** GET /user: the signed-in user, as it may see itself (no private token is issued on a read). */
  async current(): Promise<UserSelf | UserFull | UserWithPrivateToken> {
    return presentCurrentUser(this.ctx.currentUser, await this.ctx.view());
  }

  async create(input: CreateUserInput): Promise<UserFull> {
    // `reset_password` (and `force_random_password`, as newer clients spell it) set a random password no one knows.
    const randomPassword = input.reset_password === true || input.force_random_password === true;
    if (input.password === undefined && !randomPassword) throw BadRequestError.missing('password');
    const problems = new Problems();
    checkUsername(problems, input.username);
    checkName(problems, input.name);
    checkEmail(problems, input.email);
    if (input.password !== undefined && !randomPassword) checkPassword(problems, input.password);
    checkAvatar(problems, input.avatar);
    await this.checkTaken(problems, { username: input.username, email: input.email, identity: input });
    // As the original service answers: a taken e-mail address, then a taken username, before any other problem.
    for (const attribute of ['email', 'username'])
      if ((problems.messages[attribute] as string[] | undefined)?.includes(TAKEN)) throw takenConflict(attribute);
    if (problems.any) throw new BadRequestError(problems.messages);

    const settings = await this.ctx.settings();
    const now = this.ctx.now();
    const password = randomPassword ? randomBytes(32).toString('base64url') : (input.password as string);
    const user = this.em.create(User, {
      username: input.username,
      usernameLower: input.username.toLowerCase(),
      name: input.name,
      email: input.email.toLowerCase(),
      passwordHash: await hashPassword(password),
      // A reset password is unknown to everyone: the user must set one before signing in.
      passwordExpiresAt: randomPassword ? now : null,
      admin: input.admin ?? false,
      external: input.external ?? false,
      bio: input.bio ?? null,
      location: input.location ?? null,
      skype: input.skype ?? '',
      linkedin: input.linkedin ?? '',
      twitter: input.twitter ?? '',
      websiteUrl: input.website_url ?? '',
      organization: input.organization ?? null,
      projectsLimit: input.projects_limit ?? settings.default_projects_limit,
      canCreateGroup: input.can_create_group ?? true,
      confirmedAt: input.skip_confirmation ? now : null,
      avatarFilename: input.avatar?.filename ?? null,
    });
    if (user.external) withExternalRights(user);
    if (input.extern_uid !== undefined && input.provider !== undefined) {
      this.em.create(Identity, { user, provider: input.provider, externUid: input.extern_uid });
    }
    if (input.avatar) this.setAvatar(user, input.avatar);
    const namespace = createUserNamespace(this.em, user);
    // A concurrent call took the username or address after the checks above: the same answer as if it had been first.
    await this.em.flush().catch((error: unknown) => {
      const attribute = usernameFor(takenAttribute(error));
      if (attribute === 'email' || attribute === 'username') throw takenConflict(attribute);
      throw attribute ? BadRequestError.invalid(attribute, TAKEN) : error;
    });
    setTraversalIds(namespace, null);
    await this.em.flush();
    await this.recordEvent('user.created', user, {});
    return presentUserFull(user, await this.ctx.view());
  }

  /** An event of a user (made, renamed, removed), by the caller, with the user as its target. */
  private recordEvent<K extends 'user.created' | 'user.renamed' | 'user.destroyed'>(
    kind: K,
    user: Pick<User, 'id' | 'username'>,
    data: EventData[K],
  ): Promise<unknown> {
    const target = { type: 'User', id: user.id, title: user.username };
    return this.ctx.record({ kind, authorId: this.ctx.caller.user?.id ?? null, target, data });
  }

  async update(user: User, input: UpdateUserInput): Promise<UserFull> {
    const problems = new Problems();
    if (input.username !== undefined) checkUsername(problems, input.username);
    if (input.name !== undefined) checkName(problems, input.name);
    if (input.email !== undefined) checkEmail(problems, input.email);
    if (input.password !== undefined) checkPassword(problems, input.password);
    checkAvatar(problems, input.avatar);
    if (problems.any) throw new BadRequestError(problems.messages);
    // SPEC.md Errors 12: a taken username or e-mail answers 404 here, not 409.
    const taken = new Problems();
    await this.checkTaken(taken, { username: input.username, email: input.email, identity: input, except: user });
    if (taken.any) throw new NotFoundValidationError(taken.messages);

    const oldUsername = user.username;
    if (input.username !== undefined) {
      user.username = input.username;
      user.usernameLower = input.username.toLowerCase();
    }
    if (input.name !== undefined) user.name = input.name;
    if (input.email !== undefined) user.email = input.email.toLowerCase();
    if (input.password !== undefined) {
      user.passwordHash = await hashPassword(input.password);
      // Set by an administrator: the user must choose a new one at the next sign-in.
      user.passwordExpiresAt = this.ctx.now();
      await new AccessTokensService(this.ctx).revokeSessions(user);
    }
    if (input.skype !== undefined) user.skype = input.skype;
    if (input.linkedin !== undefined) user.linkedin = input.linkedin;
    if (input.twitter !== undefined) user.twitter = input.twitter;
    if (input.website_url !== undefined) user.websiteUrl = input.website_url;
    if (input.organization !== undefined) user.organization = input.organization;
    if (input.projects_limit !== undefined) user.projectsLimit = input.projects_limit;
    if (input.bio !== undefined) user.bio = input.bio;
    if (input.location !== undefined) user.location = input.location;
    if (input.admin !== undefined) user.admin = input.admin;
    if (input.can_create_group !== undefined) user.canCreateGroup = input.can_create_group;
    if (input.external !== undefined) {
      const becomesExternal = input.external && !user.external;
      user.external = input.external;
      if (becomesExternal) withExternalRights(user);
    }
    if (input.extern_uid !== undefined && input.provider !== undefined) {
      const identity = await this.em.findOne(Identity, { user, provider: input.provider });
      if (identity) identity.externUid = input.extern_uid;
      else this.em.create(Identity, { user, provider: input.provider, externUid: input.extern_uid });
    }
    if (input.avatar) {
      user.avatarFilename = input.avatar.filename;
      await this.em.nativeDelete(UserAvatar, { user });
      this.setAvatar(user, input.avatar);
    }
    if (input.username !== undefined || input.name !== undefined) await new NamespacesService(this.ctx).renameForUser(user);
    await this.em.flush().catch((error: unknown) => {
      const attribute = usernameFor(takenAttribute(error));
      throw attribute ? new NotFoundValidationError({ [attribute]: [TAKEN] }) : error;
    });
    if (user.username !== oldUsername) await this.recordEvent('user.renamed', user, { old_path: oldUsername });
    return presentUserFull(user, await this.ctx.view());
  }

  /**
   * Removes the user with its keys, e-mails, tokens and attributes, its namespace and its projects.
   * Its contributions elsewhere stay, their author gone (null, where the original shows its ghost user:
   * forgekit has none): commit comments, and commit statuses as the original keeps them too. `hard_delete`
   * removes its commit comments as well, as the original removes what it would give its ghost user.
   */
  async delete(user: User, options: { hard_delete?: boolean } = {}): Promise<void> {
    if (options.hard_delete) await this.em.nativeDelete(CommitNote, { author: user.id });
    // Its namespace and the projects in it go with it (the database cascades); their repositories once that is committed.
    const projects = await this.em.find(Project, { namespace: { owner: user.id } }, { fields: ['id', 'path', 'repositoryStorage'] });
    const gone = await projectsAsEventsName(
      this.em,
      projects.map((project) => project.id),
    );
    await this.em.nativeDelete(User, { id: user.id });
    for (const project of projects) {
      this.ctx.afterCommit(() => this.ctx.env.repositories.remove(project.repositoryStorage, project.id));
      const data = gone.get(project.id)!;
      await this.ctx.record({ kind: 'project.destroyed', authorId: this.ctx.currentUser.id, projectId: project.id, data });
    }
    const data = { username: user.username, name: user.name, email: user.email, created_at: user.createdAt.toISOString() };
    await this.recordEvent('user.destroyed', user, data);
  }

  /**
   * POST /users/:id/block: true once blocked; false for a user blocked already, as the original's state machine
   * refuses the transition. One conditional update decides, so of two blocks at once only one answers true.
   */
  async block(user: User): Promise<boolean> {
    if (!(await this.changeState(user, 'active', 'blocked'))) return false;
    await new AccessTokensService(this.ctx).revokeSessions(user);
    await this.em.flush();
    return true;
  }

  /** POST /users/:id/unblock: true once active again; false for a user who is not blocked, as the original answers. */
  unblock(user: User): Promise<boolean> {
    return this.changeState(user, 'blocked', 'active');
  }

  /** Moves the user from state `from` to `to` when it is in `from`; whether it was. */
  private async changeState(user: User, from: string, to: string): Promise<boolean> {
    const changed = await this.em.nativeUpdate(User, { id: user.id, state: from }, { state: to });
    if (!changed) return false;
    // The entity loaded for the request says what the row now says (a later flush writes the same value).
    user.state = to;
    return true;
  }

  /** An uploaded avatar, by its user and file name. */
  async avatar(id: number, filename: string): Promise<RawFile> {
    const avatar = await this.em.findOne(UserAvatar, { user: id });
    if (!avatar || avatar.filename !== filename) throw new NotFoundError();
    return { content_type: avatar.contentType, data: avatar.data };
  }

  private setAvatar(user: User, avatar: NonNullable<CreateUserInput['avatar']>): void {
    this.em.create(UserAvatar, { user, filename: avatar.filename, contentType: avatar.content_type, data: Buffer.from(avatar.data) });
  }

  /** Usernames (any case), e-mail addresses (primary or secondary, of anyone) and identities are unique. */
  private async checkTaken(
    problems: Problems,
    wanted: { username?: string; email?: string; identity: { provider?: string; extern_uid?: string }; except?: User },
  ): Promise<void> {
    const others = wanted.except ? { id: { $ne: wanted.except.id } } : {};
    if (wanted.username !== undefined) {
      // A username is its namespace's path, which no top-level group may have either.
      const ownNamespace = wanted.except ? await this.em.findOne(Namespace, { owner: wanted.except }) : null;
      if (
        (await this.em.count(User, { ...others, usernameLower: wanted.username.toLowerCase() })) ||
        (await new NamespacesService(this.ctx).pathTaken(null, wanted.username, ownNamespace ?? undefined))
      ) {
        problems.add('username', TAKEN);
      }
    }
    if (wanted.email !== undefined) {
      const email = wanted.email.toLowerCase();
      const exceptUser = wanted.except ? { user: { $ne: wanted.except.id } } : {};
      if ((await this.em.count(User, { ...others, email })) || (await this.em.count(Email, { ...exceptUser, email }))) {
        problems.add('email', TAKEN);
      }
    }
    const { provider, extern_uid: externUid } = wanted.identity;
    if (provider !== undefined && externUid !== undefined) {
      const exceptUser = wanted.except ? { user: { $ne: wanted.except.id } } : {};
      if (await this.em.count(Identity, { ...exceptUser, provider, externUid })) problems.add('extern_uid', TAKEN);
    }
  }
}
