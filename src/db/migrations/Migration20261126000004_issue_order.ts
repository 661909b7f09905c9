import { Migration } from '@mikro-orm/migrations';

/** A project's issues in order of creation, whatever their state: the default page of its list. */
export class Migration20261126000004_issue_order extends Migration {
  override name = 'Migration20261126000004_issue_order';

  override up(): void | Promise<void> {
    this.addSql(`create index "issues_project_id_created_at_index" on "issues" ("project_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "issues_project_id_created_at_index";`);
  }
}
