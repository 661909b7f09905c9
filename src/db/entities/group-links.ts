import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, createdAt, day } from './columns.js';
import { Namespace } from './namespaces.js';

/**
 * A group shared with another group (POST /groups/:id/share): the members of `sharedWithGroup` (and of the
 * groups above it) reach `sharedGroup`, its subgroups and their projects, at most at `groupAccess`, until the day
 * the share expires if it does. The access it gives is worked out in src/auth/access-levels.ts.
 */
export const GroupGroupLink = defineEntity({
  name: 'GroupGroupLink',
  tableName: 'group_group_links',
  uniques: [{ properties: ['sharedGroup', 'sharedWithGroup'] }],
  properties: {
    id: p.integer().primary(),
    sharedGroup: belongsTo(Namespace),
    sharedWithGroup: belongsTo(Namespace).index(),
    groupAccess: p.integer(),
    expiresAt: day().nullable(),
    createdAt: createdAt(),
  },
});
export type GroupGroupLink = InferEntity<typeof GroupGroupLink>;
