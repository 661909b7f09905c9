import { Migration } from '@mikro-orm/migrations';

/** A delivery's request kept as sent: `json` keeps the payload's fields in the original's order, which `jsonb` sorts. */
export class Migration20261128000003_web_hook_requests_as_sent extends Migration {
  override name = 'Migration20261128000003_web_hook_requests_as_sent';

  override up(): void | Promise<void> {
    this.addSql(`alter table "web_hook_logs" alter column "request_data" type json using "request_data"::json;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "web_hook_logs" alter column "request_data" type jsonb using "request_data"::jsonb;`);
  }
}
