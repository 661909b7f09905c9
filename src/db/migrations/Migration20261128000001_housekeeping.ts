import { Migration } from '@mikro-orm/migrations';
import { addForeignKey } from './statements.js';

/**
 * Branch pushes since a repository's last housekeeping (the original's `pushes_since_gc`), and the paths projects
 * had before they were renamed or moved, where git is redirected to them (the original's `redirect_routes`).
 */
export class Migration20261128000001_housekeeping extends Migration {
  override name = 'Migration20261128000001_housekeeping';

  override up(): void | Promise<void> {
    this.addSql(`alter table "projects" add column "pushes_since_gc" int not null default 0;`);
    this.addSql(
      `create table "redirect_routes" ("id" serial primary key, "path" text not null, "project_id" int not null, ` +
        `"created_at" timestamptz not null);`,
    );
    this.addSql(`create unique index "redirect_routes_path_lower_index" on "redirect_routes" (lower("path"));`);
    this.addSql(`create index "redirect_routes_project_id_index" on "redirect_routes" ("project_id");`);
    addForeignKey(this, 'redirect_routes', 'project_id', 'projects', 'on delete cascade');
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "redirect_routes" cascade;`);
    this.addSql(`alter table "projects" drop column if exists "pushes_since_gc";`);
  }
}
