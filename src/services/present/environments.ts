import type { ProjectEnvironment } from '../../db/entities/index.js';
import type { Environment } from '../../schemas/environments.js';

/** A project's environment, as every route answers it: the same to whoever may read it. */
export function presentEnvironment(environment: Pick<ProjectEnvironment, 'id' | 'name' | 'slug' | 'externalUrl' | 'state'>): Environment {
  return {
    id: environment.id,
    name: environment.name,
    slug: environment.slug,
    external_url: environment.externalUrl ?? null,
    state: environment.state,
    // forgekit keeps no deployments: later clients read the field, and find none.
    last_deployment: null,
  };
}
