/**
 * The typed errors every way in raises. The HTTP adapter turns each into the status and body that
 * SPEC.md "Errors" gives; in-process callers catch the same classes.
 */
import type { OAuthError as OAuthErrorBody, ValidationMessages } from './types.js';

/** A validation map: property name → error messages. */
export type { ValidationMessages };

/** `ErrorMessage` or `ValidationError` (one type: a BadRequestError carries either), or `OAuthError`. */
export type ErrorBody = { message: string | ValidationMessages } | OAuthErrorBody;

/** Each class names itself (`error.name`) in so many words: bundlers rename classes (`_BadRequestError`). */
export abstract class ApiError extends Error {
  abstract readonly status: number;
  /** The JSON body the HTTP adapter answers with: the message, unless the error says more. */
  body(): ErrorBody {
    return { message: this.message };
  }
}

/** An error whose body is its messages: a text, or messages by attribute (body shape 5). */
abstract class MessagesError extends ApiError {
  constructor(
    readonly messages: string | ValidationMessages,
    /** What the error's own message starts with when the messages are by attribute. */
    statusText: string,
  ) {
    super(typeof messages === 'string' ? messages : `${statusText} ${JSON.stringify(messages)}`);
  }
  override body(): ErrorBody {
    return { message: this.messages };
  }
}

/** What statusError makes, as the declarations name it (not the anonymous class, which would drag in Error's statics). */
type StatusErrorClass = new (text?: string) => Error & { readonly status: number; body(): ErrorBody };

/**
 * An error class that answers `status` with `statusText`, or with the message it is given (`'message'`) or with
 * `"<statusText> - <reason>"` (`'reason'`).
 */
function statusError(name: string, status: number, statusText: string, given: 'message' | 'reason' = 'message'): StatusErrorClass {
  return class extends ApiError {
    override readonly name = name;
    readonly status = status;
    constructor(text?: string) {
      super(!text ? statusText : given === 'reason' ? `${statusText} - ${text}` : text);
    }
  };
}

/** 304: nothing changed, as asked (starring a starred project, subscribing twice): HTTP answers it without a body. */
export class NotModifiedError extends statusError('NotModifiedError', 304, '304 Not Modified') {}
/** 401: missing or invalid authentication. */
export class UnauthorizedError extends statusError('UnauthorizedError', 401, '401 Unauthorized') {}
/** 403: authenticated, but not allowed (`403 Forbidden - <reason>`). */
export class ForbiddenError extends statusError('ForbiddenError', 403, '403 Forbidden', 'reason') {}
/** 405: request not supported in the resource's current state. */
export class MethodNotAllowedError extends statusError('MethodNotAllowedError', 405, '405 Method Not Allowed') {}
/** 406: the resource is not in a state that allows the request (a merge request merged or closed already). */
export class NotAcceptableError extends statusError('NotAcceptableError', 406, '406 Not Acceptable') {}
/** 422: the entity could not be processed. */
export class UnprocessableEntityError extends statusError('UnprocessableEntityError', 422, '422 Unprocessable Entity') {}
/**
 * 503: the service is starting or shutting down and takes no calls, what a call needs is not there (a repository
 * missing from its storage), or the database failed it for now (src/db/transient.ts) or it ran past its deadline:
 * `503 Service Unavailable - <reason>`, and `Retry-After` over HTTP.
 */
export class ServiceUnavailableError extends ApiError {
  override readonly name = 'ServiceUnavailableError';
  readonly status = 503;
  constructor(
    reason?: string,
    /** Seconds until the client may try again. */
    readonly retryAfter = 1,
  ) {
    super(reason ? `503 Service Unavailable - ${reason}` : '503 Service Unavailable');
  }
}

/** 400: a required attribute is missing, or attributes failed validation. */
export class BadRequestError extends MessagesError {
  override readonly name = 'BadRequestError';
  readonly status = 400;
  constructor(messages: string | ValidationMessages) {
    super(messages, '400 (Bad request)');
  }
  /** Body shape 4: `400 (Bad request) "<attribute>" not given`. */
  static missing(attribute: string): BadRequestError {
    return new BadRequestError(`400 (Bad request) "${attribute}" not given`);
  }
  /** Body shape 5 for a single property. */
  static invalid(property: string, ...messages: string[]): BadRequestError {
    return new BadRequestError({ [property]: messages });
  }
}

/** 403 for a token whose scopes do not cover the call (the OAuth error shape). */
export class InsufficientScopeError extends ApiError {
  override readonly name = 'InsufficientScopeError';
  readonly status = 403;
  constructor(readonly scopes: string[]) {
    super('The request requires higher privileges than provided by the access token.');
  }
  override body(): ErrorBody {
    return { error: 'insufficient_scope', error_description: this.message, scope: this.scopes.join(' ') };
  }
}

/** 404: `404 <Resource> Not Found`, or the given message as is. */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
  readonly status = 404;
  constructor(resourceOrMessage?: string, options: { verbatim?: boolean } = {}) {
    super(
      options.verbatim && resourceOrMessage
        ? resourceOrMessage
        : resourceOrMessage
          ? `404 ${resourceOrMessage} Not Found`
          : '404 Not Found',
    );
  }
}

/** 404 whose body is a validation map: the spec's "modifying a user returns 404 where 409 fits". */
export class NotFoundValidationError extends ApiError {
  override readonly name = 'NotFoundValidationError';
  readonly status = 404;
  constructor(readonly messages: ValidationMessages) {
    super(`404 ${JSON.stringify(messages)}`);
  }
  override body(): ErrorBody {
    return { message: this.messages };
  }
}

/** 409: a conflicting resource exists. */
export class ConflictError extends MessagesError {
  override readonly name = 'ConflictError';
  readonly status = 409;
  /** A text, or (a fork whose name or path is taken, as the original answers it) messages by attribute. */
  constructor(messages: string | ValidationMessages = '409 Conflict') {
    super(messages, '409 Conflict');
  }
}

/** 429: too many failed attempts; `retryAfter` seconds until the next one is considered. */
export class TooManyRequestsError extends ApiError {
  override readonly name = 'TooManyRequestsError';
  readonly status = 429;
  constructor(readonly retryAfter: number) {
    super('429 Too Many Requests');
  }
}

/** The OAuth 2 error shape (RFC 6749 §5.2), answered by POST /oauth/token. */
export class OAuthError extends ApiError {
  override readonly name = 'OAuthError';
  constructor(
    readonly error: 'invalid_request' | 'invalid_grant' | 'invalid_scope' | 'unsupported_grant_type',
    readonly description: string,
    readonly status = error === 'invalid_grant' ? 401 : 400,
  ) {
    super(description);
  }
  override body(): ErrorBody {
    return { error: this.error, error_description: this.description };
  }
}
