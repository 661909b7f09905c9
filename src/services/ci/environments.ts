import { randomInt } from 'node:crypto';
import { raw, UniqueConstraintViolationException, type FilterQuery } from '@mikro-orm/core';
import { can, type ProjectInScope } from '../../auth/abilities.js';
import { ProjectEnvironment } from '../../db/entities/index.js';
import { BadRequestError, ForbiddenError, NotFoundError, type ValidationMessages } from '../../errors.js';
import type { CreateEnvironmentInput, Environment, ListEnvironmentsQuery, UpdateEnvironmentInput } from '../../schemas/environments.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentEnvironment } from '../present/environments.js';
import { Service } from '../service.js';

/** Gitlab::Regex.environment_name_regex of the era: these characters, not starting or ending with `/`. */
const NAME_FORMAT = /^[a-zA-Z0-9_${}. -]([a-zA-Z0-9_/${}. -]*[a-zA-Z0-9_${}. -])?$/;
const NAME_FORMAT_MESSAGE =
  "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
const TAKEN = 'has already been taken';
const SLUG_REFUSED = 'is automatically generated and cannot be changed';
/** The original's AddressableUrlValidator. */
const URL_MESSAGE = 'must be a valid URL';

/** The longest slug (the original's OpenShift limit), and what is kept of a slug that gets a suffix. */
const SLUG_MAX = 24;
const SUFFIXED_STEM = 17;
const SUFFIX_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Six random lowercase letters and digits, as the original's `random_suffix`. */
const randomSuffix = () => Array.from({ length: 6 }, () => SUFFIX_CHARS[randomInt(SUFFIX_CHARS.length)]).join('');

/**
 * Environment#generate_slug of the era: lowercase letters and digits, anything else a dash; from a letter (`env-`
 * before anything else); no repeated dashes; at most 24 characters, not ending with a dash. A slug that differs from
 * the name gets a random six-character suffix (its stem cut to 17 characters), since slugifying may have made two
 * names alike.
 */
export function environmentSlug(name: string, suffix: () => string = randomSuffix): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, '-').slice(0, SLUG_MAX);
  if (slug.endsWith('-')) slug = slug.slice(0, -1);
  if (slug === name) return slug;
  slug = slug.slice(0, SUFFIXED_STEM);
  return `${slug.endsWith('-') ? slug : `${slug}-`}${suffix()}`;
}

/** Ruby's `blank?` of a string: empty or white space only. */
const blank = (text: string) => /^\s*$/.test(text);

/**
 * An external URL the original's validator takes (of the original's 11.x, whose default protocols later versions
 * kept): an absolute http or https URL with a host, of printable ASCII without spaces (URI.regexp's alphabet).
 */
function validUrl(text: string): boolean {
  if (!/^[\x21-\x7e]+$/.test(text) || !/^https?:\/\//i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** An external URL as the original keeps it: blank is none, and the rest stripped. */
const keptUrl = (given: string | null | undefined): string | null =>
  given === null || given === undefined || blank(given) ? null : given.trim();

/** The constraint each attribute's uniqueness is kept by: a writer that loses a race gets the same 400 as the check. */
const UNIQUE_ATTRIBUTES: Record<string, 'name' | 'slug' | 'external_url'> = {
  environments_project_id_name_unique: 'name',
  environments_project_id_slug_unique: 'slug',
  environments_project_id_external_url_unique: 'external_url',
};

/** `environments.find(id)` missing: the original's answer to ActiveRecord::RecordNotFound. */
const notFound = () => new NotFoundError('404 Not found', { verbatim: true });

/**
 * A project's deployment environments (the original's Environments API): listed, read, created, renamed (the slug
 * stays), stopped and deleted. Reading takes `read_environment` (reporters), the rest `create_environment`,
 * `update_environment`, `stop_environment` and `destroy_environment` (developers).
 */
export class EnvironmentsService extends Service {
  /**
   * GET /projects/:id/environments: oldest first (by ID); `name` exactly, or `search` a case-insensitive prefix of the
   * name (not both, as the original refuses), `states` one state.
   */
  async list(scoped: ProjectInScope, query: ListEnvironmentsQuery & PageQuery): Promise<Page<Environment>> {
    if (query.name !== undefined && query.search !== undefined)
      throw new BadRequestError('400 (Bad request) "name, search" cannot be used together');
    const where: FilterQuery<ProjectEnvironment>[] = [{ project: scoped.project.id }];
    if (query.name !== undefined) where.push({ name: query.name });
    // The expression the prefix index is built on (environments_project_name_prefix_index).
    if (query.search)
      where.push({ [raw('lower(name)')]: { $like: `${query.search.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%` } });
    if (query.states !== undefined) where.push({ state: query.states });
    const page = await findPage(this.em, ProjectEnvironment, { $and: where }, { id: 'asc' }, query, { plainRows: true });
    return { ...page, items: page.items.map(presentEnvironment) };
  }

  /** GET /projects/:id/environments/:environment_id (later clients): `404 Not found` for another project's. */
  async get(scoped: ProjectInScope, environmentId: number): Promise<Environment> {
    return presentEnvironment(await this.environmentOf(scoped, environmentId));
  }

  /**
   * POST /projects/:id/environments (and /environment, as the specification writes it): 201 with the environment,
   * `available`, its slug made from its name; 400 with the validation messages otherwise.
   */
  async create(scoped: ProjectInScope, input: CreateEnvironmentInput): Promise<Environment> {
    if (input.slug !== undefined) throw BadRequestError.invalid('slug', SLUG_REFUSED);
    const projectId = scoped.project.id;
    const externalUrl = keptUrl(input.external_url);
    let slug = environmentSlug(input.name);
    const problems = await this.problems(projectId, { name: input.name, slug, externalUrl });
    // A random suffix that another environment's slug has already: another draw, as the original's chance allows.
    for (let tries = 0; problems.slug && slug !== input.name && tries < 5; tries += 1) {
      slug = environmentSlug(input.name);
      if (!(await this.taken(projectId, { slug })).slug) delete problems.slug;
    }
    if (Object.keys(problems).length) throw new BadRequestError(problems);
    const environment = this.em.create(ProjectEnvironment, { project: projectId, name: input.name, slug, externalUrl, state: 'available' });
    await this.flush();
    return presentEnvironment(environment);
  }

  /**
   * PUT /projects/:id/environments/:environment_id: its `name` and `external_url` changed, those given (none changes
   * nothing, as in the original); the slug stays what it was made. 400 with the validation messages.
   */
  async update(scoped: ProjectInScope, environmentId: number, input: UpdateEnvironmentInput): Promise<Environment> {
    const environment = await this.environmentOf(scoped, environmentId);
    if (input.slug !== undefined) throw BadRequestError.invalid('slug', SLUG_REFUSED);
    const name = input.name === undefined || input.name === environment.name ? undefined : input.name;
    const externalUrl = input.external_url === undefined ? undefined : keptUrl(input.external_url);
    const changedUrl = externalUrl === undefined || externalUrl === environment.externalUrl ? undefined : externalUrl;
    const problems = await this.problems(scoped.project.id, { name, externalUrl: changedUrl }, environment.id);
    if (Object.keys(problems).length) throw new BadRequestError(problems);
    if (name !== undefined) environment.name = name;
    if (externalUrl !== undefined) environment.externalUrl = externalUrl;
    await this.flush();
    return presentEnvironment(environment);
  }

  /** DELETE /projects/:id/environments/:environment_id: gone, whatever its state (as the original of the era). */
  async delete(scoped: ProjectInScope, environmentId: number): Promise<void> {
    const environment = await this.environmentOf(scoped, environmentId);
    await this.em.nativeDelete(ProjectEnvironment, { id: environment.id });
  }

  /**
   * POST /projects/:id/environments/:environment_id/stop: 200 with the environment, `stopped` (one stopped already
   * stays so). Found first (404), then `stop_environment` decides (403), as the original checks them.
   */
  async stop(scoped: ProjectInScope, environmentId: number): Promise<Environment> {
    const environment = await this.environmentOf(scoped, environmentId);
    if (!can(this.ctx.caller, 'stop_environment', scoped)) throw new ForbiddenError();
    if (environment.state === 'available') {
      environment.state = 'stopped';
      await this.flush();
    }
    return presentEnvironment(environment);
  }

  private async environmentOf(scoped: ProjectInScope, environmentId: number): Promise<ProjectEnvironment> {
    const environment = await this.em.findOne(ProjectEnvironment, { id: environmentId, project: scoped.project.id });
    if (!environment) throw notFound();
    return environment;
  }

  /**
   * Environment's validations of what is to be written, in the order the original runs them: the name present,
   * unique, at most 255 characters (the schema's bound) and of its format; the slug unique; the external URL unique
   * and valid. Only what is given is checked (a rename checks no slug).
   */
  private async problems(
    projectId: number,
    values: { name?: string; slug?: string; externalUrl?: string | null },
    exceptId?: number,
  ): Promise<ValidationMessages> {
    const taken = await this.taken(
      projectId,
      { name: values.name, slug: values.slug, externalUrl: values.externalUrl ?? undefined },
      exceptId,
    );
    const problems: ValidationMessages = {};
    if (values.name !== undefined) {
      const name: string[] = [];
      if (blank(values.name)) name.push("can't be blank");
      if (taken.name) name.push(TAKEN);
      if (!NAME_FORMAT.test(values.name)) name.push(NAME_FORMAT_MESSAGE);
      if (name.length) problems.name = name;
    }
    if (taken.slug) problems.slug = [TAKEN];
    if (values.externalUrl) {
      const url: string[] = [];
      if (taken.externalUrl) url.push(TAKEN);
      if (!validUrl(values.externalUrl)) url.push(URL_MESSAGE);
      if (url.length) problems.external_url = url;
    }
    return problems;
  }

  /** Which of these values another environment of the project has already: one statement. */
  private async taken(projectId: number, values: { name?: string; slug?: string; externalUrl?: string }, exceptId?: number) {
    const matches: FilterQuery<ProjectEnvironment>[] = [];
    if (values.name !== undefined) matches.push({ name: values.name });
    if (values.slug !== undefined) matches.push({ slug: values.slug });
    if (values.externalUrl !== undefined) matches.push({ externalUrl: values.externalUrl });
    if (!matches.length) return {};
    const others = await this.em.find(
      ProjectEnvironment,
      { project: projectId, $or: matches, ...(exceptId === undefined ? {} : { id: { $ne: exceptId } }) },
      { fields: ['name', 'slug', 'externalUrl'] },
    );
    return {
      name: values.name !== undefined && others.some((other) => other.name === values.name),
      slug: values.slug !== undefined && others.some((other) => other.slug === values.slug),
      externalUrl: values.externalUrl !== undefined && others.some((other) => other.externalUrl === values.externalUrl),
    };
  }

  /** The changes written; a unique value another writer took since the check: the same 400 as the check's. */
  private async flush(): Promise<void> {
    await this.em.flush().catch((error: unknown) => {
      const attribute =
        error instanceof UniqueConstraintViolationException
          ? UNIQUE_ATTRIBUTES[(error as { constraint?: string }).constraint ?? '']
          : undefined;
      throw attribute ? BadRequestError.invalid(attribute, TAKEN) : error;
    });
  }
}
