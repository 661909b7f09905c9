import { Type, type Static } from 'typebox';
import { Nullable } from './common.js';

/** GET /metadata, as today's clients read it; forgekit runs no Kubernetes agent server (`kas`). */
export const Metadata = Type.Object(
  {
    version: Type.String(),
    revision: Type.String(),
    kas: Type.Object(
      { enabled: Type.Boolean(), externalUrl: Nullable(Type.String()), version: Nullable(Type.String()) },
      { additionalProperties: false },
    ),
    enterprise: Type.Boolean(),
  },
  { additionalProperties: false, title: 'Metadata' },
);
export type Metadata = Static<typeof Metadata>;
