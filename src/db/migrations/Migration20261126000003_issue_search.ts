import { Migration } from '@mikro-orm/migrations';

/**
 * Issues' `search` through one trigram index of the title and the description joined: with one index on each, the
 * planner could not tell how few rows a pattern keeps and read every issue of the project instead.
 */
export class Migration20261126000003_issue_search extends Migration {
  override name = 'Migration20261126000003_issue_search';

  override up(): void | Promise<void> {
    this.addSql(`drop index if exists "issues_title_trgm_index";`);
    this.addSql(`drop index if exists "issues_description_trgm_index";`);
    this.addSql(
      `create index "issues_search_trgm_index" on "issues" using gin (("title" || ' ' || coalesce("description", '')) gin_trgm_ops);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "issues_search_trgm_index";`);
    this.addSql(`create index "issues_title_trgm_index" on "issues" using gin ("title" gin_trgm_ops);`);
    this.addSql(`create index "issues_description_trgm_index" on "issues" using gin ("description" gin_trgm_ops);`);
  }
}
