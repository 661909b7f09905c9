import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_initial } from './Migration20261121000000_initial.js';

/** Every migration, oldest first. New ones come from `forgekit migration:create` (docs/development.md). */
export const migrations: MigrationObject[] = [{ name: 'Migration20261121000000_initial', class: Migration20261121000000_initial }];
