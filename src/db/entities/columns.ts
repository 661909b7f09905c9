import { p } from '@mikro-orm/core';
import { clockOf } from '../../clock.js';

/**
 * Columns that many entities share, written once. Each call makes new builders: MikroORM keeps a builder's
 * options as its property's metadata, so one builder must never serve two properties.
 */

/**
 * For a time set when the row is made: `p.datetime().onCreate(now)`. The instance's clock, which the EntityManager
 * that writes the row knows (src/clock.ts `clockOf`): several instances in one process each keep their own.
 */
export const now = (_entity: unknown, em: { config: object }) => clockOf(em).now();

/** When the row was made. */
export const createdAt = () => p.datetime().onCreate(now);

/** When the row was last changed (at first, when it was made). */
export const updatedAt = () => p.datetime().onCreate(now).onUpdate(now);

/** `createdAt` and `updatedAt`, for a row that changes after it is made. */
export const timestamps = () => ({ createdAt: createdAt(), updatedAt: updatedAt() });

type Target = Parameters<typeof p.manyToOne>[0];

/**
 * A reference to the row this one belongs to, which takes this one with it when deleted (a project's branches, a
 * user's keys). A target not defined yet (the entity itself) wants a function: `() => belongsTo(Namespace)`.
 */
export const belongsTo = <T extends Target>(target: T) => p.manyToOne(target).deleteRule('cascade');

/** An optional reference, emptied when its target is deleted: this row outlives it (an author, a fork's source). */
export const refersTo = <T extends Target>(target: T) => p.manyToOne(target).nullable().deleteRule('set null');

/** A SHA-256 digest, in hex: how a token (or a throttling key) is kept, never the thing itself. */
export const digest = () => p.string().length(64);

/** A calendar day (`YYYY-MM-DD`), kept as the API reads and writes it: no time, no time zone. */
export const day = () => p.string().length(10);

/** An uploaded image kept in the database, in a table of its own so that listing its owners never loads the bytes. */
export const image = () => ({
  filename: p.string().length(255),
  contentType: p.string().length(128),
  data: p.blob(),
});
