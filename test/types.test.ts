import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { schemas } from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules/typescript/lib/tsc.js');
/**
 * `tsc -p <project>`, which also prints the processor time it took: the time a check takes on a core of its own,
 * whatever else the machine runs (the suite runs files in parallel on two cores).
 */
const timedTsc = `const [tsc, project] = process.argv.slice(1);
process.argv = [process.argv[0], tsc, '-p', project, '--extendedDiagnostics'];
process.on('exit', () => { const { user, system } = process.cpuUsage(); console.log('CPU seconds: ' + (user + system) / 1e6); });
require(tsc);`;
/** What a schema's type is exported as, where its name is taken: `OAuthError` is the error class. */
const exportedAs = (name: string) => (name === 'OAuthError' ? 'OAuthErrorBody' : name);

/**
 * Type-checks `files` as a consumer of the built package does: inside the package, so that `forgekit` resolves
 * to it (dist/index.d.ts, or index.d.cts for a .cts file), with every declaration file checked.
 */
function typeCheck(files: Record<string, string>) {
  const consumer = mkdtempSync(join(root, '.consumer-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(consumer, name), text);
    const compilerOptions = {
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      target: 'ES2023',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
    };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: Object.keys(files) }));
    const result = spawnSync(process.execPath, ['-e', timedTsc, tsc, consumer], { encoding: 'utf8', timeout: 60_000 });
    const errors = result.stdout.split('\n').filter((line) => line.includes('error TS'));
    const figure = (name: string) => Number(new RegExp(`^${name}:\\s+([\\d.]+)`, 'm').exec(result.stdout)?.[1]);
    return { status: result.status, errors, seconds: figure('CPU seconds'), instantiations: figure('Instantiations') };
  } finally {
    rmSync(consumer, { recursive: true, force: true });
  }
}

describe.skipIf(Boolean(process.env.FORGEKIT_TEST_DATABASE_URL))('the public types', { timeout: 120_000 }, () => {
  it('are published without TypeBox: the declarations import only Node.js and Express types', () => {
    for (const file of ['dist/index.d.ts', 'dist/index.d.cts']) {
      const modules = [...readFileSync(join(root, file), 'utf8').matchAll(/^import .* from '([^']+)'/gm)].map((match) => match[1]);
      expect(modules.sort(), file).toEqual(['express', 'node:stream']);
    }
  });

  it("export every schema's type by the schema's name, to ES module and CommonJS consumers", () => {
    const names = Object.keys(schemas);
    expect(names).toContain('Project');
    // A name without a type fails the import; one that is not a schema's, or is missing, fails `everyName`.
    const consumer = `import type { SchemaName, ${names.map(exportedAs).join(', ')} } from 'forgekit';
export type Exported = [${names.map(exportedAs).join(', ')}];
export const everyName: Record<SchemaName, true> = { ${names.map((name) => `${name}: true`).join(', ')} };
`;
    const result = typeCheck({ 'every-name.mts': consumer, 'every-name.cts': consumer });
    expect(result.errors).toEqual([]);
    expect(result.status).toBe(0);
  });

  it("check in a consumer's compiler in a few seconds", () => {
    // Twenty of the exported types, the service, a caller's API and a few calls, their results typed.
    const app =
      `import {
  createHostingService,
  schemas,
  BadRequestError,
  type Api,
  type Branch,
  type CommitListItem,
  type CommitAction,
  type CommitWithStats,
  type CreateProjectInput,
  type Email,
  type ErrorBody,
  type FileWriteResult,
  type GroupDetail,
  type HostingService,
  type JsonSchema,
  type ListResult,
  type Member,
  type Namespace,
  type PersonalAccessTokenWithToken,
  type Project,
  type RepositoryFile,
  type Tag,
  type UserFull,
  type Visibility,
} from 'forgekit';

const hosting: HostingService = await createHostingService();
const alice: UserFull = await hosting.users.create({ email: 'alice@example.com', username: 'alice', name: 'Alice', password: ` +
      `'correct-horse-battery' });
const token: PersonalAccessTokenWithToken = await hosting.personalAccessTokens.create(alice.id, { name: 'ci', scopes: ['api'] });
const api: Api = hosting.as(token.token);
const visibility: Visibility = 'private';
const input: CreateProjectInput = { name: 'app', visibility };
const project: Project = await api.projects.create(input);
const written: FileWriteResult = await api.repositoryFiles.create(project.id, 'README.md', { branch: 'main', content: '# App', ` +
      `commit_message: 'Start' });
const file: RepositoryFile = await api.repositoryFiles.get(project.id, written.file_path, { ref: 'main' });
const actions: CommitAction[] = [{ action: 'create', file_path: 'src/app.js', content: 'console.log(1);' }];
const commit: CommitWithStats = await api.commits.create(project.id, { branch: 'main', commit_message: 'Code', actions });
const history: ListResult<CommitListItem> = await api.commits.list(project.id, { per_page: 5 });
const branch: Branch = await api.branches.create(project.id, { branch: 'feature', ref: 'main' });
const tag: Tag = await api.tags.create(project.id, { tag_name: 'v1', ref: commit.id });
const group: GroupDetail = await hosting.groups.create({ name: 'Team', path: 'team' });
const member: Member = await hosting.groupMembers.add(group.id, { user_id: alice.id, access_level: 30 });
const namespaces: Namespace[] = await api.namespaces.list();
const emails: Email[] = await api.emails.list();
const schema: JsonSchema = schemas.Project;
try {
  await api.emails.create({ email: emails[0]?.email ?? 'alice@example.com' });
} catch (error) {
  if (error instanceof BadRequestError) {
    const body: ErrorBody = error.body();
    console.log(body);
  }
}
// @ts-expect-error: the types are real, not any
const wrong: string = project.id;
console.log(file.content, history.length, history.total, branch.name, tag.name, member.access_level, namespaces.length, schema.type, wrong);
await hosting.close();
`;
    const result = typeCheck({ 'app.ts': app });
    expect(result.errors).toEqual([]);
    expect(result.status).toBe(0);
    // TypeBox's Static<> over the schemas, evaluated in the consumer, took 2.4 million instantiations and 17 s or more.
    expect(result.instantiations).toBeLessThan(100_000);
    // About 2.5 CPU seconds alone on 2 cores; the bound leaves room for a suite running beside it on a shared machine
    // (CI measured 6.5 s once), while the instantiations above are the figure that does not vary.
    expect(result.seconds).toBeLessThan(10);
  });
});
