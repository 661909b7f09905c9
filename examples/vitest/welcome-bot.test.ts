// A user's test suite for their own tool (welcome-bot.ts) against forgekit: one test double per vitest worker, reset
// to the seed before each test, faults planted on the route the bot calls, and the request journal asked what the bot
// did. Run: npm run build, then npx vitest run --config examples/vitest/vitest.config.ts
import { GitbeakerRequestError, Gitlab } from '@gitbeaker/rest';
import type { SeedDescription, SeedResult } from 'forgekit';
import { useForgekit } from 'forgekit/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { WELCOMED, welcome, welcomeNewIssues } from './welcome-bot.ts';

// Started before the file's first test, served on a local port, reset before each test.
const forgekit = useForgekit();

// The world the bot works in, as plain data: the bot (a reporter of the project) and alice, whose project has an issue
// to welcome, one welcomed already and one closed.
const world: SeedDescription = {
  users: [{ username: 'welcome-bot' }, { username: 'alice' }], // each with a personal access token the seed answers
  projects: [
    {
      name: 'app',
      namespace: 'alice',
      members: [{ user: 'welcome-bot', access_level: 20 }],
      labels: [{ name: WELCOMED, color: '#428BCA' }],
      issues: [
        { title: 'It crashes on start', author: 'alice' },
        { title: 'Dark mode', author: 'alice', labels: [WELCOMED], notes: [{ body: welcome('alice'), author: 'welcome-bot' }] },
        { title: 'Typo', author: 'alice', state: 'closed' },
      ],
    },
  ],
};

// The seed becomes the state each reset puts back: made once, before the first test.
let seeded: SeedResult;
beforeAll(async () => {
  seeded = await forgekit.hosting.seed(world);
});

const NOTES = 'POST /projects/:id/issues/:issue_iid/notes';
const runBot = () => welcomeNewIssues({ host: forgekit.url, token: seeded.users[0].token, projectId: seeded.projects[0].id });

it('welcomes the new issue with one comment and the label', async () => {
  expect(await runBot()).toEqual([1]);

  // What the project shows, read with the same client as alice.
  const alice = new Gitlab(forgekit.clientOptions(seeded.users[1].token));
  const projectId = seeded.projects[0].id;
  const comments = (await alice.IssueNotes.all(projectId, 1)).filter((note) => !note.system);
  expect(comments.map((note) => [note.author.username, note.body])).toEqual([['welcome-bot', welcome('alice')]]);
  expect((await alice.Issues.show(1, { projectId })).labels).toEqual([WELCOMED]);

  // What the bot asked of the service: exactly one comment, with this body.
  const created = forgekit.hosting.requests.list({ route: NOTES, caller: 'welcome-bot' });
  expect(created.map(({ path, body, status }) => ({ path, body, status }))).toEqual([
    { path: `/api/v4/projects/${projectId}/issues/1/notes`, body: { body: welcome('alice') }, status: 201 },
  ]);

  // Run again, it finds nothing new.
  expect(await runBot()).toEqual([]);
  expect(forgekit.hosting.requests.list({ route: NOTES })).toHaveLength(1);
});

it('starts from the seed again: the last test left nothing behind', async () => {
  expect(forgekit.hosting.requests.list()).toEqual([]);
  const issue = await new Gitlab(forgekit.clientOptions()).Issues.show(1, { projectId: seeded.projects[0].id });
  expect(issue.labels).toEqual([]);
});

it('rides out a 429: gitbeaker tries the comment again', async () => {
  forgekit.hosting.faults.add({ route: NOTES, caller: 'welcome-bot', status: 429, times: 1 });

  expect(await runBot()).toEqual([1]);
  expect(forgekit.hosting.requests.list({ route: NOTES }).map((call) => call.status)).toEqual([429, 201]);
});

it('retries a 503 once, after the Retry-After it was given', async () => {
  forgekit.hosting.faults.add({ route: NOTES, caller: 'welcome-bot', status: 503, retryAfter: 1, times: 1 });

  expect(await runBot()).toEqual([1]);
  const [refused, created] = forgekit.hosting.requests.list({ route: NOTES });
  expect([refused.status, created.status]).toEqual([503, 201]);
  expect(Date.parse(created.time) - Date.parse(refused.time)).toBeGreaterThanOrEqual(900);
  expect(created.body).toEqual({ body: welcome('alice') });
});

it('gives up after a second 503, and labels nothing', async () => {
  forgekit.hosting.faults.add({ route: NOTES, status: 503, retryAfter: 0 });

  const failure = await runBot().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(GitbeakerRequestError);
  expect(forgekit.hosting.requests.list({ route: NOTES }).map((call) => call.status)).toEqual([503, 503]);
  expect(forgekit.hosting.requests.list({ route: 'PUT /projects/:id/issues/:issue_iid' })).toEqual([]);
});
