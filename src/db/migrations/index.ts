import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_initial } from './Migration20261121000000_initial.js';
import { Migration20261121000001_user_search } from './Migration20261121000001_user_search.js';
import { Migration20261122000000_email_owner } from './Migration20261122000000_email_owner.js';
import { Migration20261122000001_auth_failures } from './Migration20261122000001_auth_failures.js';
import { Migration20261122000002_user_filters } from './Migration20261122000002_user_filters.js';
import { Migration20261123000000_callers_changed } from './Migration20261123000000_callers_changed.js';
import { Migration20261123000001_namespaces_projects } from './Migration20261123000001_namespaces_projects.js';
import { Migration20261123000002_jobs } from './Migration20261123000002_jobs.js';
import { Migration20261123000004_runners_tokens } from './Migration20261123000004_runners_tokens.js';
import { Migration20261123000005_project_avatars } from './Migration20261123000005_project_avatars.js';
import { Migration20261124000000_repositories } from './Migration20261124000000_repositories.js';
import { Migration20261126000000_external_users } from './Migration20261126000000_external_users.js';
import { Migration20261126000001_callers_changed_flag } from './Migration20261126000001_callers_changed_flag.js';
import { Migration20261126000002_work_items } from './Migration20261126000002_work_items.js';
import { Migration20261126000003_issue_search } from './Migration20261126000003_issue_search.js';
import { Migration20261126000004_issue_order } from './Migration20261126000004_issue_order.js';
import { Migration20261126000005_merge_requests } from './Migration20261126000005_merge_requests.js';
import { Migration20261126000006_discussions } from './Migration20261126000006_discussions.js';
import { Migration20261126000007_live_work_items } from './Migration20261126000007_live_work_items.js';
import { Migration20261127000000_runners } from './Migration20261127000000_runners.js';
import { Migration20261127000001_environments } from './Migration20261127000001_environments.js';
import { Migration20261127000002_group_links } from './Migration20261127000002_group_links.js';
import { Migration20261128000000_events } from './Migration20261128000000_events.js';

/** Every migration, oldest first, under the name it declares. New ones come from `forgekit migration:create` (docs/development.md). */
export const migrations: MigrationObject[] = [
  Migration20261121000000_initial,
  Migration20261121000001_user_search,
  Migration20261122000000_email_owner,
  Migration20261122000001_auth_failures,
  Migration20261122000002_user_filters,
  Migration20261123000000_callers_changed,
  Migration20261123000001_namespaces_projects,
  Migration20261123000002_jobs,
  Migration20261123000004_runners_tokens,
  Migration20261123000005_project_avatars,
  Migration20261124000000_repositories,
  Migration20261126000000_external_users,
  Migration20261126000001_callers_changed_flag,
  Migration20261126000002_work_items,
  Migration20261126000003_issue_search,
  Migration20261126000004_issue_order,
  Migration20261126000005_merge_requests,
  Migration20261126000006_discussions,
  Migration20261126000007_live_work_items,
  Migration20261127000000_runners,
  Migration20261127000001_environments,
  Migration20261127000002_group_links,
  Migration20261128000000_events,
].map((migration) => ({ name: declaredName(migration), class: migration }));

/**
 * The `name` a migration class declares, the one the database records (MikroORM reads it from an instance too): a
 * bundler may rename the class itself. Making one runs nothing: the constructor only keeps its arguments.
 */
function declaredName(migration: MigrationObject['class']): string {
  const { name } = new migration(undefined as never, undefined as never);
  if (!name) throw new Error(`the migration ${migration.name} declares no name`);
  return name;
}
