import { Migration } from '@mikro-orm/migrations';
import { addForeignKey } from './statements.js';

/** Projects' uploaded avatars. */
export class Migration20261123000005_project_avatars extends Migration {
  override name = 'Migration20261123000005_project_avatars';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "project_avatars" ("project_id" int not null, "filename" varchar(255) not null, ` +
        `"content_type" varchar(128) not null, "data" bytea not null, primary key ("project_id"));`,
    );

    addForeignKey(this, 'project_avatars', 'project_id', 'projects', 'on update cascade on delete cascade');
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "project_avatars" cascade;`);
  }
}
