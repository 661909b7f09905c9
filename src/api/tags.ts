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
import { projectItems, projectRoute } from './scoped.js';
import { ReleasesService } from '../services/repository/releases.js';
import { TagsService } from '../services/repository/tags.js';
import { defineModule } from './module.js';
import * as tagsSchemas from '../schemas/tags.js';
import * as repositoriesTables from '../db/entities/repositories.js';

const tag = projectItems({ path: '/repository/tags', id: 'tag_name', service: (ctx) => new TagsService(ctx) });

export const tags = {
  list: tag.list({
    summary: 'The tags of a project’s repository, by name in reverse order; by commit date with `order_by=updated`',
    ability: 'download_code',
    input: ListTagsQuery,
    list: Tag,
  }),
  get: tag.get({
    summary: 'A tag, with its commit and release notes',
    ability: 'download_code',
    response: Tag,
  }),
  create: tag.create({
    summary:
      'Create a tag at a commit, branch or tag: annotated with `message`, with release notes (developers); 405 when it cannot be made',
    ability: 'push_code',
    input: CreateTagInput,
    response: Tag,
  }),
  delete: tag.delete({
    summary: 'Delete a tag and its release (maintainers: the original lets developers change no tag that exists)',
    ability: 'push_code',
  }),
  createRelease: projectRoute({
    method: 'POST',
    path: '/repository/tags/:tag_name/release',
    summary: 'Add release notes to a tag (developers); 409 when it has them',
    ability: 'push_code',
    input: ReleaseNoteInput,
    response: Release,
    run: (ctx, { project, tag_name }, input) => new ReleasesService(ctx).createNote(project, tag_name, input),
  }),
  updateRelease: projectRoute({
    method: 'PUT',
    path: '/repository/tags/:tag_name/release',
    summary: 'Change a tag’s release notes (developers)',
    ability: 'push_code',
    input: ReleaseNoteInput,
    response: Release,
    run: (ctx, { project, tag_name }, input) => new ReleasesService(ctx).updateNote(project, tag_name, input),
  }),
};

const release = projectItems({ path: '/releases', id: 'tag_name', service: (ctx) => new ReleasesService(ctx) });

export const releases = {
  list: release.list({
    summary: 'The releases of a project’s tags, the latest released first',
    ability: 'download_code',
    input: ListReleasesQuery,
    list: ProjectRelease,
  }),
  get: release.get({
    summary: 'The release of a tag',
    ability: 'download_code',
    response: ProjectRelease,
  }),
  create: release.create({
    summary: 'Make a release of a tag, the tag made from `ref` when it does not exist (developers); 409 when the tag has one',
    ability: 'push_code',
    input: CreateReleaseInput,
    response: ProjectRelease,
  }),
  update: release.update({
    summary: 'Change a release’s name, notes or release date (developers)',
    ability: 'push_code',
    input: UpdateReleaseInput,
    response: ProjectRelease,
  }),
  delete: release.delete({
    summary: 'Delete a release, not its tag (developers); answered with the release, as the original',
    ability: 'push_code',
    response: ProjectRelease,
  }),
};

export const tagsModule = defineModule({
  routes: { tags, releases },
  descriptions: {
    tags: 'Tags of a project’s repository: lightweight or annotated, each with the release notes kept beside it',
    releases: 'Releases of a project’s tags, as today’s clients manage them: a name, notes and a release date per tag',
  },
  schemas: { ...tagsSchemas },
  entities: [repositoriesTables.Release],
});
