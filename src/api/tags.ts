import {
  CreateReleaseInput,
  CreateTagInput,
  ListReleasesQuery,
  ListTagsQuery,
  ProjectRelease,
  Release,
  ReleaseNoteInput,
  Tag,
  UpdateReleaseInput,
} from '../schemas/tags.js';
import { defineRoute } from './route.js';

export const tags = {
  list: defineRoute({
    method: 'GET', path: '/projects/:id/repository/tags', summary: 'The tags of a project’s repository, by name in reverse order; by commit date with `order_by=updated`', auth: 'public',
    scope: 'project', ability: 'download_code', input: ListTagsQuery, list: Tag,
    run: (ctx, { project }, input) => ctx.tags.list(project, input),
  }),
  get: defineRoute({
    method: 'GET', path: '/projects/:id/repository/tags/:tag_name', summary: 'A tag, with its commit and release notes', auth: 'public',
    scope: 'project', ability: 'download_code', response: Tag,
    run: (ctx, { project, tag_name }) => ctx.tags.get(project, tag_name),
  }),
  create: defineRoute({
    method: 'POST', path: '/projects/:id/repository/tags', summary: 'Create a tag at a commit, branch or tag: annotated with `message`, with release notes (developers); 405 when it cannot be made', auth: 'user',
    scope: 'project', ability: 'push_code', input: CreateTagInput, response: Tag,
    run: (ctx, { project }, input) => ctx.tags.create(project, input),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/projects/:id/repository/tags/:tag_name', summary: 'Delete a tag and its release (maintainers: the original lets developers change no tag that exists)', auth: 'user',
    scope: 'project', ability: 'push_code',
    run: (ctx, { project, tag_name }) => ctx.tags.delete(project, tag_name),
  }),
  createRelease: defineRoute({
    method: 'POST', path: '/projects/:id/repository/tags/:tag_name/release', summary: 'Add release notes to a tag (developers); 409 when it has them', auth: 'user',
    scope: 'project', ability: 'push_code', input: ReleaseNoteInput, response: Release,
    run: (ctx, { project, tag_name }, input) => ctx.releases.createNote(project, tag_name, input),
  }),
  updateRelease: defineRoute({
    method: 'PUT', path: '/projects/:id/repository/tags/:tag_name/release', summary: 'Change a tag’s release notes (developers)', auth: 'user',
    scope: 'project', ability: 'push_code', input: ReleaseNoteInput, response: Release,
    run: (ctx, { project, tag_name }, input) => ctx.releases.updateNote(project, tag_name, input),
  }),
};

export const releases = {
  list: defineRoute({
    method: 'GET', path: '/projects/:id/releases', summary: 'The releases of a project’s tags, the latest released first', auth: 'public',
    scope: 'project', ability: 'download_code', input: ListReleasesQuery, list: ProjectRelease,
    run: (ctx, { project }, input) => ctx.releases.list(project, input),
  }),
  get: defineRoute({
    method: 'GET', path: '/projects/:id/releases/:tag_name', summary: 'The release of a tag', auth: 'public',
    scope: 'project', ability: 'download_code', response: ProjectRelease,
    run: (ctx, { project, tag_name }) => ctx.releases.get(project, tag_name),
  }),
  create: defineRoute({
    method: 'POST', path: '/projects/:id/releases', summary: 'Make a release of a tag, the tag made from `ref` when it does not exist (developers); 409 when the tag has one', auth: 'user',
    scope: 'project', ability: 'push_code', input: CreateReleaseInput, response: ProjectRelease,
    run: (ctx, { project }, input) => ctx.releases.create(project, input),
  }),
  update: defineRoute({
    method: 'PUT', path: '/projects/:id/releases/:tag_name', summary: 'Change a release’s name, notes or release date (developers)', auth: 'user',
    scope: 'project', ability: 'push_code', input: UpdateReleaseInput, response: ProjectRelease,
    run: (ctx, { project, tag_name }, input) => ctx.releases.update(project, tag_name, input),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/projects/:id/releases/:tag_name', summary: 'Delete a release, not its tag (developers); answered with the release, as the original', auth: 'user',
    scope: 'project', ability: 'push_code', response: ProjectRelease,
    run: (ctx, { project, tag_name }) => ctx.releases.delete(project, tag_name),
  }),
};
