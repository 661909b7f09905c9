import { Type, type Static } from 'typebox';
import { Commit, MESSAGE_MAX } from './commits.js';
import { BoundedText, DateTime, DateTimeInput, Nullable, REF_MAX } from './common.js';
import { UserBasic } from './users.js';

const closed = { additionalProperties: false } as const;

/** The longest release description (Markdown): the original's limit for descriptions, a million characters. */
export const DESCRIPTION_MAX = 1_000_000;

/** A tag's release notes, as the tags API shows them. */
export const Release = Type.Object({ tag_name: Type.String(), description: Type.String() }, { ...closed, title: 'Release' });
export type Release = Static<typeof Release>;

/** A tag: lightweight (`message` null) or annotated, with the commit it names and its release notes. */
export const Tag = Type.Object(
  {
    name: Type.String(),
    /** The annotation; null for a lightweight tag. */
    message: Nullable(Type.String()),
    /** The object the tag holds: the annotated tag object's ID, or the commit's for a lightweight tag. */
    target: Type.String(),
    /** The commit the tag names; null for a tag of another kind of object (a tree, a blob), which git allows. */
    commit: Nullable(Commit),
    release: Nullable(Release),
    /** forgekit protects no tags. */
    protected: Type.Boolean(),
  },
  { ...closed, title: 'Tag' },
);
export type Tag = Static<typeof Tag>;

const sort = Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: '`desc` (default) or `asc`' }));

export const ListTagsQuery = Type.Object({
  order_by: Type.Optional(
    Type.Union([Type.Literal('name'), Type.Literal('updated')], {
      description: 'by `name` (default) or `updated`: the date of the commit each tag names',
    }),
  ),
  sort,
  search: Type.Optional(
    BoundedText({ description: 'part of the name; `^name` for names starting with it, `name$` for names ending with it' }),
  ),
});
export type ListTagsQuery = Static<typeof ListTagsQuery>;

const tagName = BoundedText({ maxLength: REF_MAX, description: 'the tag’s name' });
const description = (text: string) => Type.String({ maxLength: DESCRIPTION_MAX, description: text });

export const CreateTagInput = Type.Object({
  tag_name: tagName,
  ref: BoundedText({ maxLength: REF_MAX, description: 'the commit SHA, tag or branch it names' }),
  message: Type.Optional(
    Type.String({ maxLength: MESSAGE_MAX, description: 'makes an annotated tag with this annotation (the caller its tagger)' }),
  ),
  release_description: Type.Optional(description('release notes (Markdown) stored with the tag')),
});
export type CreateTagInput = Static<typeof CreateTagInput>;

export const ReleaseNoteInput = Type.Object({ description: description('the release notes (Markdown)') });
export type ReleaseNoteInput = Static<typeof ReleaseNoteInput>;

/** A file of the release: nothing but what forgekit can serve is listed. */
const ReleaseAssets = Type.Object(
  {
    count: Type.Integer(),
    /** Source archives: none yet, forgekit serves no archive a release can link to. */
    sources: Type.Array(Type.Never(), { maxItems: 0 }),
    /** Links to release assets: none, forgekit keeps none. */
    links: Type.Array(Type.Never(), { maxItems: 0 }),
  },
  closed,
);

/** A release as the releases API (`/projects/:id/releases`) shows it. */
export const ProjectRelease = Type.Object(
  {
    tag_name: Type.String(),
    /** The tag's name unless the release was given one. */
    name: Type.String(),
    description: Type.String(),
    created_at: DateTime,
    released_at: DateTime,
    /** Who made it; absent once that user is deleted. */
    author: Type.Optional(UserBasic),
    /** The commit the tag named when the release was made. */
    commit: Nullable(Commit),
    /** Whether `released_at` is still to come. */
    upcoming_release: Type.Boolean(),
    assets: ReleaseAssets,
  },
  { ...closed, title: 'ProjectRelease' },
);
export type ProjectRelease = Static<typeof ProjectRelease>;

export const ListReleasesQuery = Type.Object({
  order_by: Type.Optional(
    Type.Union([Type.Literal('released_at'), Type.Literal('created_at')], { description: 'by `released_at` (default) or `created_at`' }),
  ),
  sort,
});
export type ListReleasesQuery = Static<typeof ListReleasesQuery>;

const releaseName = BoundedText({ description: 'the release’s title (the tag’s name by default)' });
const releasedAt = {
  ...DateTimeInput,
  description: 'when it is (or was) released; now by default, a time to come makes an upcoming release',
};

export const CreateReleaseInput = Type.Object({
  tag_name: tagName,
  name: Type.Optional(releaseName),
  description: Type.Optional(description('the release notes (Markdown)')),
  ref: Type.Optional(
    BoundedText({ maxLength: REF_MAX, description: 'where to make the tag when it does not exist: a commit SHA, tag or branch' }),
  ),
  tag_message: Type.Optional(
    Type.String({ maxLength: MESSAGE_MAX, description: 'with `ref`: makes the tag annotated, with this annotation' }),
  ),
  released_at: Type.Optional(releasedAt),
});
export type CreateReleaseInput = Static<typeof CreateReleaseInput>;

/** What a release update changes; a null (go-gitlab sends the options it has no value for as null) changes nothing. */
export const UpdateReleaseInput = Type.Object({
  name: Type.Optional(Nullable(releaseName)),
  description: Type.Optional(Nullable(description('the release notes (Markdown)'))),
  released_at: Type.Optional(Nullable(releasedAt)),
});
export type UpdateReleaseInput = Static<typeof UpdateReleaseInput>;
