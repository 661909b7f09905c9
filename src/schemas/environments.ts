import { Type, type Static } from 'typebox';
import { BoundedText, Nullable } from './common.js';

/**
 * Projects' deployment environments: the shape of SPEC.md's Environment (`id`, `name`, `slug`, `external_url`) with
 * the `state` and `last_deployment` that later clients read.
 */

const closed = { additionalProperties: false } as const;

export const EnvironmentState = Type.Union([Type.Literal('available'), Type.Literal('stopped')], {
  description: '`available` until stopped',
});

export const Environment = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    /** Made from the name when the environment is created; it stays when the environment is renamed. */
    slug: Type.String(),
    external_url: Nullable(Type.String()),
    state: EnvironmentState,
    /** Always null: forgekit keeps no deployments (later clients read the field). */
    last_deployment: Type.Null({ description: 'always null: no deployments are kept' }),
  },
  { ...closed, title: 'Environment' },
);
export type Environment = Static<typeof Environment>;

export const ListEnvironmentsQuery = Type.Object({
  name: Type.Optional(BoundedText({ description: 'the environment of exactly this name (not with `search`)' })),
  search: Type.Optional(BoundedText({ description: 'environments whose name starts with this, in any case (not with `name`)' })),
  states: Type.Optional(EnvironmentState),
});
export type ListEnvironmentsQuery = Static<typeof ListEnvironmentsQuery>;

const externalUrl = Nullable(BoundedText({ description: 'an http(s) URL where the environment is seen; blank or null for none' }));
/** The original refuses a slug: it is made from the name, once. */
const slug = BoundedText({ description: 'refused (400): the slug is made from the name' });

export const CreateEnvironmentInput = Type.Object({
  name: BoundedText({ description: "letters, digits, spaces, '-', '_', '/', '$', '{', '}' and '.', not starting or ending with '/'" }),
  external_url: Type.Optional(externalUrl),
  slug: Type.Optional(slug),
});
export type CreateEnvironmentInput = Static<typeof CreateEnvironmentInput>;

export const UpdateEnvironmentInput = Type.Object({
  name: Type.Optional(BoundedText({ description: 'a new name (the slug stays)' })),
  external_url: Type.Optional(externalUrl),
  slug: Type.Optional(slug),
});
export type UpdateEnvironmentInput = Static<typeof UpdateEnvironmentInput>;
