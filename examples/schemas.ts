// Schemas for client authors: TypeBox schemas (plain JSON Schema), their static types, and OpenAPI.
import { Ajv } from 'ajv';
import { openApiDocument, schemas, type UserBasic } from 'forgekit';

const ajv = new Ajv({ strict: false });
const isUserBasic = ajv.compile<UserBasic>(schemas.UserBasic);

const fromTheWire: unknown = {
  id: 1,
  name: 'Administrator',
  username: 'root',
  state: 'active',
  avatar_url: null,
  web_url: 'http://localhost/root',
};
if (isUserBasic(fromTheWire)) console.log('a valid user reference:', fromTheWire.username);
console.log('invalid without web_url:', !isUserBasic({ ...(fromTheWire as object), web_url: undefined }));

const document = openApiDocument('https://forge.example.com') as { paths: Record<string, object> };
console.log('OpenAPI paths:', Object.keys(document.paths).length);
