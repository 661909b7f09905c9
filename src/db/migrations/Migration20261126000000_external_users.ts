import { Migration } from '@mikro-orm/migrations';

/** External users made before their rights were enforced: no personal projects, no top-level groups (as a user made external now gets). */
export class Migration20261126000000_external_users extends Migration {
  override name = 'Migration20261126000000_external_users';

  override up(): void | Promise<void> {
    this.addSql(`update "users" set "projects_limit" = 0, "can_create_group" = false where "external";`);
  }

  override down(): void | Promise<void> {
    // What the limits were before is not kept: nothing to undo.
  }
}
