import { Type, type Static } from 'typebox';
import { BoundedText, DateTime, INT32_MAX, LIST_MAX, Nullable } from './common.js';

const visibility = Type.Union([Type.Literal('private'), Type.Literal('internal'), Type.Literal('public')]);
/** Names of storages and sign-in sources. */
const nameList = Type.Array(BoundedText(), { maxItems: LIST_MAX });
/**
 * Allowed and denied sign-up domains: a domain name has at most 253 characters, 255 with a leading `*.`.
 * Deny lists pasted from spam lists run to thousands of entries; the original sets no limit.
 */
const domainList = Type.Array(BoundedText(), { maxItems: 10_000 });
/** A URL or path setting: a string column (255 characters) in the original. */
const url = Nullable(BoundedText());

/** Minimum key sizes in bits; 0 means no restriction, -1 forbids the key type. */
const keyRestriction = (allowed: number[]) =>
  Type.Unsafe<number>({ type: 'integer', enum: allowed, description: `bits: one of ${allowed.join(', ')}` });

/** Every application setting with its type, in the order SPEC.md lists them. */
export const settingsFields = {
  default_projects_limit: Type.Integer({ minimum: 0, maximum: INT32_MAX, default: 100000 }),
  signup_enabled: Type.Boolean({ default: true }),
  password_authentication_enabled: Type.Boolean({ default: true }),
  avatarsvc_enabled: Type.Boolean({ default: true }),
  // Free text; the original's text column holds 65,535 bytes on MySQL, which it supported then.
  sign_in_text: Nullable(BoundedText({ maxLength: 65_535 })),
  home_page_url: url,
  default_branch_protection: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)], { default: 2 }),
  restricted_visibility_levels: Nullable(Type.Array(visibility, { maxItems: LIST_MAX })),
  max_attachment_size: Type.Integer({ minimum: 1, maximum: INT32_MAX, default: 10 }),
  session_expire_delay: Type.Integer({ minimum: 0, maximum: INT32_MAX, default: 10080 }),
  default_project_visibility: visibility,
  default_snippet_visibility: visibility,
  default_group_visibility: visibility,
  domain_whitelist: Nullable(domainList),
  domain_blacklist_enabled: Type.Boolean({ default: false }),
  domain_blacklist: Nullable(domainList),
  user_oauth_applications: Type.Boolean({ default: true }),
  after_sign_out_path: url,
  container_registry_token_expire_delay: Type.Integer({ minimum: 1, maximum: INT32_MAX, default: 5 }),
  repository_storages: nameList,
  enabled_git_access_protocol: Nullable(Type.Union([Type.Literal('ssh'), Type.Literal('http')])),
  ide_enabled: Type.Boolean({ default: false }),
  ide_url: url,
  disabled_oauth_sign_in_sources: nameList,
  diagram_enabled: Type.Boolean({ default: false }),
  diagram_url: url,
  terminal_max_session_time: Type.Integer({ minimum: 0, maximum: INT32_MAX, default: 0 }),
  // A decimal (answered as text, see ApplicationSettings); a number or a numeric string on input. The
  // original sets no upper bound; this one keeps it a plain number every client can hold.
  polling_interval_multiplier: Type.Number({ minimum: 0, maximum: INT32_MAX, default: 1, description: 'a number, or a numeric string' }),
  rsa_key_restriction: keyRestriction([0, 1024, 2048, 3072, 4096, -1]),
  dsa_key_restriction: keyRestriction([0, 1024, 2048, 3072, -1]),
  ecdsa_key_restriction: keyRestriction([0, 256, 384, 521, -1]),
  ed25519_key_restriction: keyRestriction([0, 256, -1]),
  // Not in SPEC.md: the original's switch (of later versions, by this name) that lets imports reach loopback,
  // private and link-local addresses (docs/imports.md).
  allow_local_requests_from_web_hooks_and_services: Type.Boolean({ default: false }),
};

export type SettingsValues = { [K in keyof typeof settingsFields]: Static<(typeof settingsFields)[K]> };

/** The values of a new instance. */
export const defaultSettings = (storages: string[]): SettingsValues => ({
  default_projects_limit: 100000,
  signup_enabled: true,
  password_authentication_enabled: true,
  avatarsvc_enabled: true,
  sign_in_text: null,
  home_page_url: null,
  default_branch_protection: 2,
  restricted_visibility_levels: null,
  max_attachment_size: 10,
  session_expire_delay: 10080,
  default_project_visibility: 'private',
  default_snippet_visibility: 'private',
  default_group_visibility: 'private',
  domain_whitelist: null,
  domain_blacklist_enabled: false,
  domain_blacklist: null,
  user_oauth_applications: true,
  after_sign_out_path: null,
  container_registry_token_expire_delay: 5,
  repository_storages: storages.slice(0, 1),
  enabled_git_access_protocol: null,
  ide_enabled: false,
  ide_url: null,
  disabled_oauth_sign_in_sources: [],
  diagram_enabled: false,
  diagram_url: null,
  terminal_max_session_time: 0,
  polling_interval_multiplier: 1,
  rsa_key_restriction: 0,
  dsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ed25519_key_restriction: 0,
  allow_local_requests_from_web_hooks_and_services: false,
});

/** Spellings that today's clients of the original service send, and the setting each one names. */
export const settingAliases = {
  gravatar_enabled: 'avatarsvc_enabled',
  plantuml_enabled: 'diagram_enabled',
  plantuml_url: 'diagram_url',
  domain_allowlist: 'domain_whitelist',
  domain_denylist_enabled: 'domain_blacklist_enabled',
  domain_denylist: 'domain_blacklist',
  password_authentication_enabled_for_web: 'password_authentication_enabled',
  // The other way round: SPEC.md's era (10.6–11.x) named it so; later versions and their clients the other way.
  allow_local_requests_from_hooks_and_services: 'allow_local_requests_from_web_hooks_and_services',
} as const satisfies Record<string, keyof typeof settingsFields>;

const aliasFields = Object.fromEntries(Object.entries(settingAliases).map(([alias, name]) => [alias, settingsFields[name]])) as unknown as {
  [Alias in keyof typeof settingAliases]: (typeof settingsFields)[(typeof settingAliases)[Alias]];
};

export const ApplicationSettings = Type.Object(
  {
    id: Type.Integer(),
    ...settingsFields,
    // As the original answers a decimal column: text with at least one decimal digit ("1.0", "1.5").
    polling_interval_multiplier: Type.String({ pattern: '^[0-9]+\\.[0-9]+$', description: 'a decimal, as text: "1.0"' }),
    // The newer spellings too, with the same values: today's clients read those.
    ...aliasFields,
    /** The token that registers shared runners (POST /runners); POST /runners/reset_registration_token replaces it. */
    runners_registration_token: Type.String(),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { additionalProperties: false, title: 'ApplicationSettings' },
);
export type ApplicationSettings = Static<typeof ApplicationSettings>;

/**
 * PUT /application/settings: every setting optional. `enabled_git_access_protocol` also takes `nil` or an
 * empty string for "both"; list settings also take a comma- or newline-separated string.
 */
export const UpdateSettingsInput = Type.Partial(
  Type.Object({
    ...settingsFields,
    enabled_git_access_protocol: Nullable(Type.Union([Type.Literal('ssh'), Type.Literal('http'), Type.Literal('nil'), Type.Literal('')])),
    ...aliasFields,
  }),
);
export type UpdateSettingsInput = Static<typeof UpdateSettingsInput>;
