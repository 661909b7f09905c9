import { Metadata } from '../schemas/instance.js';
import { Version } from '../schemas/users.js';
import { API_VERSION, FORGEKIT_VERSION } from '../version.js';
import { defineRoute } from './route.js';

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
