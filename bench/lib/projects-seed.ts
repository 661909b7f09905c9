/**
 * The projects benchmark's data (bench/requests.ts), written with bulk SQL (generate_series), not through the
 * API: 10,000 projects, and a reader who is a member of 1,000 of them, half directly and half through groups.
 *
 * - 1,000 users (IDs 101 to 1100), each with its own namespace (IDs 1001 to 2000, traversal IDs `{id}`).
 * - 100 top-level groups (namespaces 2001 to 2100) with a subgroup each (2101 to 2200, the subgroup of 2000 + k
 *   being 2100 + k, traversal IDs `{parent, id}`); five members each, of the users, from guest to owner.
 * - Projects 1 to 10,000 (their IDs): 1 to 5,000 five to a user's namespace, its user their creator and a
 *   maintainer of each (as forgekit makes them); 5,001 to 10,000 25 to a group or subgroup. About half
 *   private, three in ten internal, two in ten public (a hash of the ID); one in three with tags; the order of
 *   creation (`created_at`, minute by minute) a permutation of the IDs, so that a page mixes them all; forks:
 *   2,004, 2,008 ... 5,000 of 1,003, 1,007 ... 3,999 (another user's projects), and 9,004, 9,008 ... 10,000
 *   (in groups) of 3,004, 3,008 ... 4,000 (forks themselves).
 * - The reader (made through the API by the benchmark after this, so `reader` in its own namespace without
 *   projects) is a developer of the 500 projects whose ID is a multiple of 10 up to 5,000 (users' projects),
 *   and a member (developer, maintainer, owner) of groups 2001 to 2010, which hold 500 projects: 250 in the
 *   groups, 250 in their subgroups. Its expired memberships (of the projects 5, 15 ... 95 and of group 2011)
 *   count for nothing. The 100 of its projects whose ID is a multiple of 50 are shared with one of its groups
 *   (reporter or maintainer, the share capping the level); every seventh group project is shared with a group
 *   the reader is not in (2011 to 2100).
 * - 10 stars by every user, 51 by the reader.
 * - Project 3,100 (`ONE_PROJECT`), for GET /projects/:id, has all a project embeds: its user's namespace, the
 *   reader's membership and a share with one of its groups, a source (2,099) and a fork (9,100), and stars.
 */
import type { SecretBox } from '../../src/auth/secret-box.ts';
import { fixedSql, sql } from '../../src/db/sql.ts';
import type { SqlClient } from './sql.ts';

export const PROJECTS = 10_000;
export const PROJECT_USERS = 1_000;
/** The project of GET /projects/:id. */
export const ONE_PROJECT = 3_100;

/** IDs written here: the sequences go on after them (the reader, made after, takes the next ones). */
const SEQUENCES = ['users', 'namespaces', 'projects'];
/** When everything here was made. */
const stamp = sql`timestamptz '2026-01-01 00:00:00+00'`;

/** The users, groups and projects, in a new database (forgekit's schema, root its only user). */
export async function seedProjects(db: SqlClient, secrets: SecretBox): Promise<void> {
  await db.query(
    sql`insert into "users" ("id", "username", "username_lower", "name", "email", "projects_limit", "confirmed_at", "created_at",
      "updated_at")
     select 100 + i, 'dev' || i, 'dev' || i, 'Developer ' || i, 'dev' || i || '@example.com', 100000, ${stamp}, ${stamp}, ${stamp}
     from generate_series(1, ${PROJECT_USERS}) as i`,
  );
  await db.query(
    sql`insert into "namespaces" ("id", "kind", "name", "path", "full_path", "full_name", "owner_id", "traversal_ids", "created_at",
      "updated_at")
     select 1000 + i, 'user', 'dev' || i, 'dev' || i, 'dev' || i, 'Developer ' || i, 100 + i, array[1000 + i], ${stamp}, ${stamp}
     from generate_series(1, ${PROJECT_USERS}) as i`,
  );
  await db.query(
    sql`insert into "namespaces" ("id", "kind", "name", "path", "full_path", "full_name", "parent_id", "traversal_ids", "description",
      "visibility", "created_at", "updated_at")
     select 2000 + k, 'group', 'Group ' || k, 'group-' || k, 'group-' || k, 'Group ' || k, null, array[2000 + k], 'Group number ' || k,
       (array['private', 'internal', 'public'])[1 + k % 3], ${stamp}, ${stamp}
     from generate_series(1, 100) as k
     union all
     select 2100 + k, 'group', 'Team', 'team', 'group-' || k || '/team', 'Group ' || k || ' / Team', 2000 + k, array[2000 + k, 2100 + k],
       '', 'private', ${stamp}, ${stamp}
     from generate_series(1, 100) as k`,
  );
  await db.query(
    sql`insert into "group_members" ("group_id", "user_id", "access_level", "created_at")
     select 2000 + k, 100 + (k * 7 + m * 131) % ${PROJECT_USERS} + 1, 10 * m, ${stamp}
       from generate_series(1, 200) as k, generate_series(1, 5) as m`,
  );
  await db.query(
    sql`insert into "projects" ("id", "name", "path", "namespace_id", "creator_id", "description", "default_branch", "visibility",
      "tag_list",
       "repository_storage", "forked_from_id", "created_at", "updated_at", "last_activity_at")
     select n, 'Project ' || n, 'project-' || n, ns, creator, case when n % 4 = 0 then null else 'Benchmark project ' || n end, 'master',
       case when h < 5 then 'private' when h < 8 then 'internal' else 'public' end,
       case when n % 3 = 0 then array['bench', 'tag-' || n % 7] else '{}' end, 'default',
       case when n between 2001 and 5000 and n % 4 = 0 then n - 1001 when n > 9000 and n % 4 = 0
         then n - 6000 end, at, at, at + interval '1 hour'
     from (select n, abs(hashtext('visibility' || n)) % 10 as h,
             case when n <= 5000 then 1000 + (n - 1) % ${PROJECT_USERS} + 1 else 2000 + (n - 5001) % 200 + 1 end as ns,
             case when n <= 5000 then 100 + (n - 1) % ${PROJECT_USERS} + 1 else 100 + n % ${PROJECT_USERS} + 1 end as creator,
             ${stamp} + ((n * 7919) % ${PROJECTS}) * interval '1 minute' as at
           from generate_series(1, ${PROJECTS}) as n) as s`,
  );
  await db.query(
    sql`insert into "project_members" ("project_id", "user_id", "access_level", "created_at")
     select n, 100 + (n - 1) % ${PROJECT_USERS} + 1, 40, ${stamp} from generate_series(1, 5000) as n`,
  );
  // Each project's runners token, sealed as forgekit seals it (its maintainers see it).
  const ids = Array.from({ length: PROJECTS }, (_, index) => index + 1);
  const sealed = ids.map((id) => secrets.seal(`bench-runners-${id}`));
  await db.query(
    sql`update "projects" p set "runners_token_sealed" = v.sealed,
      "runners_token_digest" = encode(sha256(('bench-runners-' || v.id)::bytea), 'hex')
     from unnest(${ids}::int[], ${sealed}::text[]) as v(id, sealed) where p."id" = v.id`,
  );
  for (const table of SEQUENCES)
    await db.query(sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max("id") from ${fixedSql(`"${table}"`)}))`);
}

/** The reader's memberships, shares and stars, once the reader (user `reader`) exists. */
export async function seedReader(db: SqlClient, reader: number): Promise<void> {
  await db.query(
    sql`insert into "project_members" ("project_id", "user_id", "access_level", "expires_at", "created_at")
     select n, ${reader}::int, 30, null, ${stamp} from generate_series(10, 5000, 10) as n
     union all select n, ${reader}::int, 30, '2020-01-01', ${stamp} from generate_series(5, 95, 10) as n`,
  );
  await db.query(
    sql`insert into "group_members" ("group_id", "user_id", "access_level", "expires_at", "created_at")
     select 2000 + k, ${reader}::int, (array[30, 40, 50])[1 + k % 3], null, ${stamp} from generate_series(1, 10) as k
     union all select 2011, ${reader}::int, 50, '2020-01-01', ${stamp}`,
  );
  await db.query(
    sql`insert into "project_group_links" ("project_id", "group_id", "group_access", "created_at")
     select n, 2001 + (n / 50) % 10, case when n % 100 = 0 then 20 else 40 end, ${stamp} from generate_series(50, 5000, 50) as n
     union all select n, 2011 + n % 90, 30, ${stamp} from generate_series(5001, ${PROJECTS}) as n where n % 7 = 0`,
  );
  await db.query(
    sql`insert into "project_stars" ("project_id", "user_id", "created_at")
     select (i * 13 + k * 997) % ${PROJECTS} + 1, 100 + i, ${stamp}
       from generate_series(1, ${PROJECT_USERS}) as i, generate_series(1, 10) as k
     union all select n * 197 % ${PROJECTS} + 1, ${reader}::int, ${stamp} from generate_series(1, 50) as n
     union all select ${ONE_PROJECT}::int, ${reader}::int, ${stamp}`,
  );
  await db.query(sql`analyze`);
}
