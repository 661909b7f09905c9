import { Migration } from '@mikro-orm/migrations';

/**
 * The work items of a project that are not deleted, counted for every page's `X-Total`: a partial index the count
 * scans alone (without it PostgreSQL read the whole table once most rows were one project's).
 */
export class Migration20261126000007_live_work_items extends Migration {
  override name = 'Migration20261126000007_live_work_items';

  override up(): void | Promise<void> {
    this.addSql(`create index "merge_requests_live_project_id_index" on "merge_requests" ("project_id") where "deleted_at" is null;`);
    this.addSql(`create index "issues_live_project_id_index" on "issues" ("project_id") where "deleted_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "merge_requests_live_project_id_index";`);
    this.addSql(`drop index "issues_live_project_id_index";`);
  }
}
