import { Migration } from '@mikro-orm/migrations';
import { addForeignKey, dropForeignKeys, dropTables } from './statements.js';

/** The tables of rows that belong to a user (`user_id`), deleted with the user. */
const userTables = ['ssh_keys', 'identities', 'gpg_keys', 'emails', 'user_custom_attributes', 'access_tokens'];

export class Migration20261121000000_initial extends Migration {
  override name = 'Migration20261121000000_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "application_settings" ("id" serial primary key, "values" jsonb not null, "created_at" timestamptz not null, ` +
        `"updated_at" timestamptz not null);`,
    );

    this.addSql(
      `create table "users" ("id" serial primary key, "username" varchar(255) not null, "username_lower" varchar(255) not null, ` +
        `"name" varchar(255) not null, "email" varchar(255) not null, "password_hash" text null, "password_expires_at" timestamptz null, ` +
        `"state" varchar(16) not null default 'active', "admin" boolean not null default false, "external" boolean not null default ` +
        `false, "bio" text null, "location" varchar(255) null, "skype" varchar(255) not null default '', ` +
        `"linkedin" varchar(255) not null default '', "twitter" varchar(255) not null default '', "website_url" varchar(255) not null ` +
        `default '', "organization" varchar(255) null, "projects_limit" int not null, "can_create_group" boolean not null default true, ` +
        `"two_factor_enabled" boolean not null default false, "theme_id" int not null default 1, "color_scheme_id" int not null default ` +
        `1, "confirmed_at" timestamptz null, "last_sign_in_at" timestamptz null, "current_sign_in_at" timestamptz null, ` +
        `"last_activity_on" varchar(10) null, "avatar_filename" varchar(255) null, "created_at" timestamptz not null, ` +
        `"updated_at" timestamptz not null);`,
    );
    this.addSql(`alter table "users" add constraint "users_username_lower_unique" unique ("username_lower");`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);
    this.addSql(`create index "users_state_index" on "users" ("state");`);
    this.addSql(`create index "users_external_index" on "users" ("external");`);
    this.addSql(`create index "users_created_at_index" on "users" ("created_at");`);

    this.addSql(
      `create table "ssh_keys" ("id" serial primary key, "user_id" int not null, "title" varchar(255) not null, "key" text not null, ` +
        `"fingerprint" varchar(128) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "ssh_keys_user_id_index" on "ssh_keys" ("user_id");`);
    this.addSql(`alter table "ssh_keys" add constraint "ssh_keys_fingerprint_unique" unique ("fingerprint");`);

    this.addSql(
      `create table "identities" ("id" serial primary key, "user_id" int not null, "provider" varchar(255) not null, ` +
        `"extern_uid" varchar(255) not null);`,
    );
    this.addSql(`create index "identities_user_id_index" on "identities" ("user_id");`);
    this.addSql(`alter table "identities" add constraint "identities_provider_extern_uid_unique" unique ("provider", "extern_uid");`);

    this.addSql(
      `create table "gpg_keys" ("id" serial primary key, "user_id" int not null, "key" text not null, ` +
        `"fingerprint" varchar(64) not null, "primary_keyid" varchar(16) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "gpg_keys_user_id_index" on "gpg_keys" ("user_id");`);
    this.addSql(`alter table "gpg_keys" add constraint "gpg_keys_fingerprint_unique" unique ("fingerprint");`);
    this.addSql(`alter table "gpg_keys" add constraint "gpg_keys_primary_keyid_unique" unique ("primary_keyid");`);

    this.addSql(
      `create table "emails" ("id" serial primary key, "user_id" int not null, "email" varchar(255) not null, ` +
        `"created_at" timestamptz not null);`,
    );
    this.addSql(`create index "emails_user_id_index" on "emails" ("user_id");`);
    this.addSql(`alter table "emails" add constraint "emails_email_unique" unique ("email");`);

    this.addSql(
      `create table "user_custom_attributes" ("id" serial primary key, "user_id" int not null, "key" varchar(255) not null, ` +
        `"value" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "user_custom_attributes_key_value_index" on "user_custom_attributes" ("key", "value");`);
    this.addSql(
      `alter table "user_custom_attributes" add constraint "user_custom_attributes_user_id_key_unique" unique ("user_id", "key");`,
    );

    this.addSql(
      `create table "access_tokens" ("id" serial primary key, "user_id" int not null, "kind" text not null, ` +
        `"name" varchar(255) not null, "token_digest" varchar(64) not null, "refresh_token_digest" varchar(64) null, ` +
        `"scopes" text[] not null, "revoked" boolean not null default false, "expires_at" timestamptz null, ` +
        `"created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "access_tokens" add constraint "access_tokens_token_digest_unique" unique ("token_digest");`);
    this.addSql(`alter table "access_tokens" add constraint "access_tokens_refresh_token_digest_unique" unique ("refresh_token_digest");`);
    this.addSql(`create index "access_tokens_user_id_kind_index" on "access_tokens" ("user_id", "kind");`);

    this.addSql(
      `create table "user_avatars" ("user_id" int not null, "filename" varchar(255) not null, "content_type" varchar(128) not null, ` +
        `"data" bytea not null, primary key ("user_id"));`,
    );

    for (const table of userTables) addForeignKey(this, table, 'user_id', 'users', 'on delete cascade');
    this.addSql(
      `alter table "access_tokens" add constraint "access_tokens_kind_check" ` +
        `check ("kind" in ('private', 'personal', 'impersonation', 'oauth'));`,
    );

    addForeignKey(this, 'user_avatars', 'user_id', 'users', 'on update cascade on delete cascade');
  }

  override down(): void | Promise<void> {
    dropForeignKeys(
      this,
      [...userTables, 'user_avatars'].map((table) => [table, 'user_id']),
    );
    dropTables(this, [
      'application_settings',
      'users',
      'ssh_keys',
      'identities',
      'gpg_keys',
      'emails',
      'user_custom_attributes',
      'access_tokens',
      'user_avatars',
    ]);
  }
}
