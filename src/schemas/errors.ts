import { Type } from 'typebox';

/** The error bodies of SPEC.md "Errors"; src/errors.ts gives each error class its body of these shapes. */

/** Property name → its error messages. (SPEC.md nests a map for an embedded entity: no input embeds one yet.) */
export const ValidationMessages = Type.Record(Type.String(), Type.Array(Type.String()), { title: 'ValidationMessages' });

/** Most errors: `{"message": "404 User Not Found"}`, `{"message": "400 (Bad request) \"login\" not given"}`. */
export const ErrorMessage = Type.Object({ message: Type.String() }, { title: 'ErrorMessage' });

/** A validation failure: `{"message": {"email": ["has already been taken"]}}`. */
export const ValidationError = Type.Object({ message: ValidationMessages }, { title: 'ValidationError' });

/**
 * The OAuth 2 error shape (RFC 6749 §5.2): POST /oauth/token's failures, and token scopes that do not admit a
 * call (`insufficient_scope`, with the scopes that would in `scope`).
 */
export const OAuthError = Type.Object(
  { error: Type.String(), error_description: Type.Optional(Type.String()), scope: Type.Optional(Type.String()) },
  { title: 'OAuthError' },
);
