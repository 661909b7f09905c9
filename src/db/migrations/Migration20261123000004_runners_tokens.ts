import { Migration } from '@mikro-orm/migrations';

/** Projects' runners tokens, sealed, with their digests; the instance's own secrets (its sealing key on PostgreSQL). */
export class Migration20261123000004_runners_tokens extends Migration {
  override name = 'Migration20261123000004_runners_tokens';

  override up(): void | Promise<void> {
    this.addSql(`create table "instance_secrets" ("name" varchar(64) not null, "value" text not null, primary key ("name"));`);

    this.addSql(`alter table "projects" add "runners_token_sealed" text null, add "runners_token_digest" varchar(64) null;`);
    this.addSql(`alter table "projects" add constraint "projects_runners_token_digest_unique" unique ("runners_token_digest");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "instance_secrets" cascade;`);

    this.addSql(`alter table "projects" drop constraint "projects_runners_token_digest_unique";`);
    this.addSql(`alter table "projects" drop column "runners_token_sealed", drop column "runners_token_digest";`);
  }
}
