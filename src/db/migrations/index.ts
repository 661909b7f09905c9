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

/** Every migration, oldest first. New ones come from `forgekit migration:create` (docs/development.md). */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261121000000_initial', class: Migration20261121000000_initial },
  { name: 'Migration20261121000001_user_search', class: Migration20261121000001_user_search },
  { name: 'Migration20261122000000_email_owner', class: Migration20261122000000_email_owner },
  { name: 'Migration20261122000001_auth_failures', class: Migration20261122000001_auth_failures },
  { name: 'Migration20261122000002_user_filters', class: Migration20261122000002_user_filters },
  { name: 'Migration20261123000000_callers_changed', class: Migration20261123000000_callers_changed },
  { name: 'Migration20261123000001_namespaces_projects', class: Migration20261123000001_namespaces_projects },
  { name: 'Migration20261123000002_jobs', class: Migration20261123000002_jobs },
  { name: 'Migration20261123000004_runners_tokens', class: Migration20261123000004_runners_tokens },
  { name: 'Migration20261123000005_project_avatars', class: Migration20261123000005_project_avatars },
  { name: 'Migration20261124000000_repositories', class: Migration20261124000000_repositories },
  { name: 'Migration20261126000000_external_users', class: Migration20261126000000_external_users },
  { name: 'Migration20261126000001_callers_changed_flag', class: Migration20261126000001_callers_changed_flag },
];
