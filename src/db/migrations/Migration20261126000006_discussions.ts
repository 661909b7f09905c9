import { Migration } from '@mikro-orm/migrations';

/** Discussions: every note in a thread of its own or of replies (a 40-hex ID, as the original's), resolvable threads resolved by whom. */
export class Migration20261126000006_discussions extends Migration {
  override name = 'Migration20261126000006_discussions';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "notes" add "discussion_id" varchar(40) null, add "type" varchar(32) null, add "resolved_at" timestamptz null, ` +
        `add "resolved_by_id" int null;`,
    );
    // The notes made before: each a discussion of its own, with an ID of the original's form.
    this.addSql(`update "notes" set "discussion_id" = md5('note ' || "id") || substr(md5('discussion ' || "id"), 1, 8);`);
    this.addSql(`alter table "notes" alter column "discussion_id" set not null;`);
    this.addSql(
      `alter table "notes" add constraint "notes_resolved_by_id_foreign" foreign key ("resolved_by_id") references "users" ("id") ` +
        `on delete set null;`,
    );
    this.addSql(`create index "notes_resolved_by_id_index" on "notes" ("resolved_by_id");`);
    this.addSql(`create index "notes_discussion_id_index" on "notes" ("discussion_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "notes" drop constraint "notes_resolved_by_id_foreign";`);

    this.addSql(`drop index "notes_resolved_by_id_index";`);
    this.addSql(`drop index "notes_discussion_id_index";`);
    this.addSql(
      `alter table "notes" drop column "discussion_id", drop column "type", drop column "resolved_at", drop column "resolved_by_id";`,
    );
  }
}
