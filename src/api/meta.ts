import { Metadata } from '../schemas/instance.js';
import { Version } from '../schemas/users.js';
import { API_VERSION, FORGEKIT_VERSION } from '../version.js';
import { defineRoute } from './route.js';
import { defineModule } from './module.js';
import * as instanceSchemas from '../schemas/instance.js';
import * as commonSchemas from '../schemas/common.js';
import * as errorsSchemas from '../schemas/errors.js';
import * as seedSchemas from '../schemas/seed.js';

export const instance = {
  version: defineRoute({
    method: 'GET',
    path: '/version',
    summary: 'The version of the API this service implements',
    auth: 'user',
    readUser: true,
    response: Version,
    run: async () => ({ version: API_VERSION, revision: `forgekit-${FORGEKIT_VERSION}` }),
  }),
  metadata: defineRoute({
    method: 'GET',
    path: '/metadata',
    summary: 'The version of the API this service implements, as newer clients ask for it',
    auth: 'user',
    readUser: true,
    response: Metadata,
    run: async () => ({
      version: API_VERSION,
      revision: `forgekit-${FORGEKIT_VERSION}`,
      kas: { enabled: false, externalUrl: null, version: null },
      enterprise: false,
    }),
  }),
};

export const instanceModule = defineModule({
  routes: { instance },
  descriptions: {
    instance: 'What the service is: its version and this document',
  },
  // The seeds' (a test double's: docs/testing.md) describe no route, but are published with the others.
  schemas: { ...instanceSchemas, ...commonSchemas, ...errorsSchemas, ...seedSchemas },
});
