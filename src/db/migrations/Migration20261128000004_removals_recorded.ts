import { Migration } from '@mikro-orm/migrations';

/**
 * What a removal of a project, a user or a group recorded, found by what it removed: system hook payloads of earlier
 * events name it from there once it is gone. Partial: the other events cost nothing more.
 */
export class Migration20261128000004_removals_recorded extends Migration {
  override name = 'Migration20261128000004_removals_recorded';

  override up(): void | Promise<void> {
    this.addSql(`create index "events_project_destroyed_index" on "events" ("project_id") where "kind" = 'project.destroyed';`);
    this.addSql(`create index "events_user_destroyed_index" on "events" ("target_id") where "kind" = 'user.destroyed';`);
    this.addSql(`create index "events_group_destroyed_index" on "events" ("group_id") where "kind" = 'group.destroyed';`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop index "events_project_destroyed_index";');
    this.addSql('drop index "events_user_destroyed_index";');
    this.addSql('drop index "events_group_destroyed_index";');
  }
}
