/**
 * An instance's clock (src/clock.ts, docs/testing.md "A clock"): every timestamp it writes or compares reads it, so that
 * a test double's `hosting.clock.set()` and `advance()` decide created_at and updated_at, tokens' and memberships'
 * expiry, runners' `online`, the throttling window and the retries of hook deliveries, exactly; over HTTP under
 * `/-/forgekit/clock`, for administrators of a test double only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../src/db/rows.js';
import { sql } from '../src/db/sql.js';
import { BadRequestError, createHostingService, UnauthorizedError } from '../src/index.js';
import { environmentOf } from '../src/hosting.js';
import { createUser, eventually, queriesOf, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

/** The time the instance starts at. Its clock's source stands still there, so every time the instance writes is exact. */
const START = new Date('2030-01-05T12:00:00.000Z');
const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(START.getTime() + ms).toISOString();
/** How long a failed sign-in counts (`throttle.periodSeconds`). */
const PERIOD = 60;

let t: TestHosting;
let receiver: Server;
let receiverUrl: string;
const received: string[] = [];

beforeAll(async () => {
  // A clock whose source stands still: only `set` and `advance` move it.
  t = await startHosting({
    clock: { now: () => new Date(START) },
    throttle: { maxFailures: 3, periodSeconds: PERIOD },
    allowLocalRequests: true,
  });
  receiver = createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', () => {
      received.push(String(incoming.headers['x-gitlab-event']));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/receiver`;
});

// Back to the first start's rows, and the clock back to START.
beforeEach(() => t.reset());

afterAll(async () => {
  receiver?.close();
  await t?.close();
});

describe('the times an instance writes', () => {
  it("are its clock's: created_at of a user, an issue, a note, an event and a commit; advance moves updated_at", async () => {
    expect(t.hosting.clock.now().toISOString()).toBe(START.toISOString());
    const user = await createUser(t.hosting);
    expect((await t.hosting.users.get(user.id)).created_at).toBe(START.toISOString());
    const api = t.hosting.as(user.id);
    const project = await api.projects.create({ name: 'Timed' });
    expect(project).toMatchObject({ created_at: START.toISOString(), last_activity_at: START.toISOString() });
    const issue = await api.issues.create(project.id, { title: 'Now' });
    expect([issue.created_at, issue.updated_at]).toEqual([START.toISOString(), START.toISOString()]);

    expect(t.hosting.clock.advance(90 * SECOND).toISOString()).toBe(at(90 * SECOND));
    const note = await api.issueNotes.create(project.id, issue.iid, { body: 'Later' });
    expect(note.created_at).toBe(at(90 * SECOND));
    const edited = await api.issues.update(project.id, issue.iid, { title: 'Edited' });
    expect([edited.created_at, edited.updated_at]).toEqual([START.toISOString(), at(90 * SECOND)]);
    const closed = await api.issues.update(project.id, issue.iid, { state_event: 'close' });
    expect(closed.closed_at).toBe(at(90 * SECOND));

    const commit = await api.commits.create(project.id, {
      branch: 'master',
      commit_message: 'Dated',
      actions: [{ action: 'create', file_path: 'README.md', content: '# Dated\n' }],
    });
    expect([Date.parse(commit.authored_date), Date.parse(commit.committed_date)]).toEqual([
      Date.parse(at(90 * SECOND)),
      Date.parse(at(90 * SECOND)),
    ]);
    // The project's creation and the issue's opening at START; the comment, the closing and the push 90 s later.
    const events = await api.events.listForProject(project.id, { sort: 'asc' });
    expect(events.map((event) => [event.action_name, event.created_at])).toEqual([
      ['created', START.toISOString()],
      ['opened', START.toISOString()],
      ['commented on', at(90 * SECOND)],
      ['closed', at(90 * SECOND)],
      ['pushed new', at(90 * SECOND)],
    ]);
  });

  it('are set to any time, earlier too; reset puts the clock back to where it started, a restore leaves it', async () => {
    expect(t.hosting.clock.set('2031-06-01T08:00:00+02:00').toISOString()).toBe('2031-06-01T06:00:00.000Z');
    expect((await t.hosting.projects.create({ name: 'Later' })).created_at).toBe('2031-06-01T06:00:00.000Z');
    t.hosting.clock.set(new Date('2029-01-01T00:00:00Z'));
    expect((await t.hosting.projects.create({ name: 'Earlier' })).created_at).toBe('2029-01-01T00:00:00.000Z');
    await t.hosting.snapshot('clock-moved');
    t.hosting.clock.advance(DAY);
    await t.hosting.restore('clock-moved');
    expect(t.hosting.clock.now().toISOString()).toBe('2029-01-02T00:00:00.000Z');
    await t.reset();
    expect(t.hosting.clock.now().toISOString()).toBe(START.toISOString());
    expect(t.hosting.clock.reset().toISOString()).toBe(START.toISOString());
  });

  it('refuses a time that is not one, and a move backwards, naming the attribute', () => {
    for (const wrong of ['tomorrow', '2030-01-05', '2030-01-05T12:00:00', '2030-02-30T12:00:00Z', '10000-01-01T00:00:00Z'])
      expect(() => t.hosting.clock.set(wrong)).toThrow(BadRequestError);
    expect(() => t.hosting.clock.set('1969-12-31T23:59:59Z')).toThrow(BadRequestError);
    expect(() => t.hosting.clock.set(new Date(Number.NaN))).toThrow(BadRequestError);
    expect(() => t.hosting.clock.advance(-1)).toThrow(BadRequestError);
    expect(() => t.hosting.clock.advance(1.5)).toThrow(BadRequestError);
    try {
      t.hosting.clock.advance(-1);
    } catch (error) {
      expect((error as BadRequestError).body()).toEqual({ message: { ms: ['must be a whole number of milliseconds, 0 or more'] } });
    }
    expect(t.hosting.clock.now().toISOString()).toBe(START.toISOString());
  });
});

describe('expiry', () => {
  it('ends a personal access token and an impersonation token as their last day ends', async () => {
    const user = await createUser(t.hosting);
    const personal = await t.hosting.personalAccessTokens.create(user.id, { name: 'expiring', scopes: ['api'], expires_at: '2030-01-10' });
    const impersonation = await t.hosting.impersonationTokens.create(user.id, {
      name: 'expiring',
      scopes: ['api'],
      expires_at: '2030-01-10',
    });
    const asToken = (token: string) => t.http.get('/api/v4/user').set('PRIVATE-TOKEN', token);
    t.hosting.clock.set('2030-01-10T23:59:59.999Z');
    for (const token of [personal.token, impersonation.token]) {
      expect((await asToken(token)).status).toBe(200);
      expect((await t.hosting.as({ token }).users.current()).id).toBe(user.id);
    }
    expect((await t.hosting.personalAccessTokens.get(user.id, personal.id)).active).toBe(true);
    t.hosting.clock.advance(1);
    for (const token of [personal.token, impersonation.token]) {
      expect((await asToken(token)).status).toBe(401);
      await expect(t.hosting.as({ token }).users.current()).rejects.toThrow(UnauthorizedError);
    }
    expect((await t.hosting.personalAccessTokens.get(user.id, personal.id)).active).toBe(false);
    expect((await t.hosting.impersonationTokens.get(user.id, impersonation.id)).active).toBe(false);
    // A day already past is refused, as the clock says.
    await expect(
      t.hosting.personalAccessTokens.create(user.id, { name: 'past', scopes: ['api'], expires_at: '2030-01-10' }),
    ).rejects.toThrow(BadRequestError);
  });

  it("ends a membership's access as its last day begins", async () => {
    const owner = await createUser(t.hosting);
    const member = await createUser(t.hosting);
    const project = await t.hosting.as(owner.id).projects.create({ name: 'Members only', visibility: 'private' });
    await t.hosting.as(owner.id).projectMembers.add(project.id, { user_id: member.id, access_level: 30, expires_at: '2030-01-07' });
    const read = () => t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', member.token);
    t.hosting.clock.set('2030-01-06T23:59:59.999Z');
    expect((await read()).status).toBe(200);
    expect((await t.hosting.projectMembers.list(project.id)).map((item) => item.id)).toContain(member.id);
    t.hosting.clock.advance(1);
    expect((await read()).status).toBe(404);
    expect((await t.hosting.projectMembers.list(project.id)).map((item) => item.id)).not.toContain(member.id);
    // An expired membership is as good as none: the user can be added again.
    expect(
      await t.hosting.as(owner.id).projectMembers.add(project.id, { user_id: member.id, access_level: 20, expires_at: '2030-01-08' }),
    ).toMatchObject({ id: member.id, access_level: 20, expires_at: '2030-01-08' });
  });
});

describe("runners' contact", () => {
  it('is online for an hour after the last one, then offline', async () => {
    const { runners_registration_token } = await t.hosting.applicationSettings.get();
    const registered = await t.hosting.as(null).runners.register({ token: runners_registration_token! });
    expect(await t.hosting.as(null).runners.verify({ token: registered.token })).toBe(200);
    expect(await t.hosting.runners.get(registered.id)).toMatchObject({ contacted_at: START.toISOString(), online: true, status: 'online' });
    t.hosting.clock.advance(HOUR - 1);
    expect(await t.hosting.runners.get(registered.id)).toMatchObject({ online: true, status: 'online' });
    expect((await t.hosting.runners.all({ status: 'online' })).map((runner) => runner.id)).toEqual([registered.id]);
    t.hosting.clock.advance(1);
    expect(await t.hosting.runners.get(registered.id)).toMatchObject({ online: false, status: 'offline' });
    expect((await t.hosting.runners.all({ status: 'offline' })).map((runner) => runner.id)).toEqual([registered.id]);
  });
});

describe('failed authentication', () => {
  it('is refused for the period from the first failure, to the millisecond', async () => {
    const app = express().set('trust proxy', true).use(t.hosting.router());
    const user = await createUser(t.hosting);
    const signIn = (password: string) =>
      request(app).post('/api/v4/session').set('X-Forwarded-For', '192.0.2.40').send({ login: user.username, password });
    for (let i = 0; i < 3; i += 1) expect((await signIn('wrong-password')).status).toBe(401);
    const refused = await signIn(user.password);
    expect([refused.status, refused.headers['retry-after']]).toEqual([429, String(PERIOD)]);
    t.hosting.clock.advance(PERIOD * SECOND - 1);
    const still = await signIn(user.password);
    expect([still.status, still.headers['retry-after']]).toEqual([429, '1']);
    t.hosting.clock.advance(1);
    expect((await signIn(user.password)).status).toBe(201);
  });
});

describe('hook deliveries', () => {
  it('try a failed delivery again once the clock passes its back-off', async () => {
    const user = await createUser(t.hosting);
    const api = t.hosting.as(user.id);
    const project = await api.projects.create({ name: 'Hooked' });
    const hook = await api.projectHooks.create(project.id, { url: receiverUrl, issues_events: true, push_events: false });
    // The first try fails (502), unsent.
    t.hosting.faults.add({ target: 'hooks', route: 'Issue Hook', status: 502, times: 1 });
    received.length = 0;
    await api.issues.create(project.id, { title: 'Announced' });
    await eventually(async () =>
      expect(await t.hosting.hooks.deliveries({ hook_id: hook.id })).toMatchObject([
        { status: 'pending', attempts: 1, response_status: '502', created_at: START.toISOString() },
      ]),
    );
    // Its retry waits a second of the clock's, which stands still: moving it 999 ms leaves it waiting.
    const retry = async () =>
      (
        await queryRows(
          t.db.rows,
          sql`select status, run_at from jobs where kind = 'web_hook_delivery' and payload = ${JSON.stringify({ hookId: hook.id })}::jsonb
            and status <> 'finished'`,
        )
      ).map((job) => ({ status: job.status, run_at: new Date(job.run_at as string).toISOString() }));
    await eventually(async () => expect(await retry()).toEqual([{ status: 'queued', run_at: at(SECOND) }]));
    t.hosting.clock.advance(SECOND - 1);
    expect(await retry()).toEqual([{ status: 'queued', run_at: at(SECOND) }]);
    t.hosting.clock.advance(1);
    await eventually(async () =>
      expect(await t.hosting.hooks.deliveries({ hook_id: hook.id })).toMatchObject([
        { status: 'delivered', attempts: 2, response_status: '200' },
      ]),
    );
    expect(received).toEqual(['Issue Hook']);
  });
});

describe('background jobs', () => {
  it('run once the clock passes their time, and keep running when it passes their lease', async () => {
    const { jobs } = environmentOf(t.hosting);
    const runs: number[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    jobs.register<{ hold: boolean }>('clock_probe', {
      run: async (job) => {
        runs.push(job.id);
        if (job.payload.hold) await released;
      },
    });
    const later = await jobs.enqueue(t.db.rows, 'clock_probe', { hold: false }, { runAt: new Date(at(HOUR)) });
    t.hosting.clock.advance(HOUR - 1);
    // Every job due at the clock's time has run (and none is left but the later one).
    const due = await jobs.enqueue(t.db.rows, 'clock_probe', { hold: false });
    expect(await jobs.settled(due)).toMatchObject({ status: 'finished' });
    expect(runs).toEqual([due]);
    t.hosting.clock.advance(1);
    expect(await jobs.settled(later)).toMatchObject({ status: 'finished' });
    expect(runs).toEqual([due, later]);

    // A job running while the clock moves two hours past its lease (30 s) is not claimed again: a job queued after
    // it, which the workers take only once they found nothing older to take, runs beside it.
    const held = await jobs.enqueue(t.db.rows, 'clock_probe', { hold: true });
    await eventually(async () => expect(runs).toContain(held));
    t.hosting.clock.advance(2 * HOUR);
    const beside = await jobs.enqueue(t.db.rows, 'clock_probe', { hold: false });
    expect(await jobs.settled(beside)).toMatchObject({ status: 'finished' });
    release();
    expect(await jobs.settled(held)).toMatchObject({ status: 'finished' });
    expect(runs).toEqual([due, later, held, beside]);
  });

  it("are the database server's while the clock reads the system's time (a fleet's processes agree on leases)", async () => {
    const plain = await startHosting();
    try {
      const { jobs } = environmentOf(plain.hosting);
      jobs.register('server_time_probe', { run: async () => {} });
      const enqueue = () => queriesOf(plain.db, () => jobs.enqueue(plain.db.rows, 'server_time_probe', {}));
      expect((await enqueue()).join('\n')).toMatch(/coalesce\(\$\d+::timestamptz, now\(\)\), now\(\)\)/);
      plain.hosting.clock.advance(SECOND);
      expect((await enqueue()).join('\n')).not.toMatch(/now\(\)/);
    } finally {
      await plain.close();
    }
  });
});

describe('/-/forgekit/clock', () => {
  const root = { 'PRIVATE-TOKEN': ROOT_TOKEN };

  it('reads, sets, advances and resets the clock for administrators', async () => {
    expect(await t.http.get('/-/forgekit/clock').set(root)).toMatchObject({ status: 200, body: { now: START.toISOString() } });
    const set = await t.http.put('/-/forgekit/clock').set(root).send({ now: '2030-02-01T00:00:00Z' });
    expect([set.status, set.body]).toEqual([200, { now: '2030-02-01T00:00:00.000Z' }]);
    const advanced = await t.http.post('/-/forgekit/clock/advance').set(root).send({ ms: DAY });
    expect([advanced.status, advanced.body]).toEqual([200, { now: '2030-02-02T00:00:00.000Z' }]);
    expect(t.hosting.clock.now().toISOString()).toBe('2030-02-02T00:00:00.000Z');
    expect((await t.hosting.projects.create({ name: 'Over HTTP' })).created_at).toBe('2030-02-02T00:00:00.000Z');
    const reset = await t.http.delete('/-/forgekit/clock').set(root);
    expect([reset.status, reset.body]).toEqual([200, { now: START.toISOString() }]);
  });

  it('answers 400 naming the attribute for what is not a time or a move forward', async () => {
    const refusals = [
      [t.http.put('/-/forgekit/clock').set(root).send({}), 'now'],
      [t.http.put('/-/forgekit/clock').set(root).send({ now: 'next week' }), 'now'],
      [t.http.put('/-/forgekit/clock').set(root).send({ now: '2030-01-01T00:00:00Z', ms: 5 }), 'ms'],
      [t.http.post('/-/forgekit/clock/advance').set(root).send({ ms: -1000 }), 'ms'],
      [t.http.post('/-/forgekit/clock/advance').set(root).send({ ms: '1000' }), 'ms'],
      [t.http.post('/-/forgekit/clock/advance').set(root).send({ seconds: 5 }), 'seconds'],
    ] as const;
    for (const [answer, attribute] of refusals) {
      const refused = await answer;
      expect(refused.status).toBe(400);
      expect(Object.keys(refused.body.message)).toEqual([attribute]);
    }
    expect(t.hosting.clock.now().toISOString()).toBe(START.toISOString());
  });

  it('answers 401 without a token and 403 to anyone but an administrator', async () => {
    const user = await createUser(t.hosting);
    expect((await t.http.get('/-/forgekit/clock')).status).toBe(401);
    expect((await t.http.post('/-/forgekit/clock/advance').send({ ms: 1 })).status).toBe(401);
    expect((await t.http.get('/-/forgekit/clock').set('PRIVATE-TOKEN', user.token)).status).toBe(403);
    expect((await t.http.put('/-/forgekit/clock').set('PRIVATE-TOKEN', user.token).send({ now: '2031-01-01T00:00:00Z' })).status).toBe(403);
    expect((await t.http.post('/-/forgekit/clock/advance').set('PRIVATE-TOKEN', user.token).send({ ms: 1 })).status).toBe(403);
    expect(t.hosting.clock.now().toISOString()).toBe(START.toISOString());
  });
});

describe('outside the test-double mode', () => {
  it('the clock is read but not moved, and /-/forgekit/clock is not served; each instance keeps its own', async () => {
    const later = '2035-07-08T09:10:11.012Z';
    const plain = await startHosting({ testDouble: false, clock: { now: () => new Date(later) } });
    try {
      expect(plain.hosting.clock.now().toISOString()).toBe(later);
      expect((await plain.hosting.projects.create({ name: 'Plain' })).created_at).toBe(later);
      // Two instances in one process, each with its own clock, for the rows the ORM times too.
      expect((await t.hosting.projects.create({ name: 'Beside' })).created_at).toBe(START.toISOString());
      const [plainUser, user] = [await createUser(plain.hosting), await createUser(t.hosting)];
      expect((await plain.hosting.users.get(plainUser.id)).created_at).toBe(later);
      expect((await t.hosting.users.get(user.id)).created_at).toBe(START.toISOString());
      expect(() => plain.hosting.clock.set(new Date())).toThrow(/not a test double/);
      expect(() => plain.hosting.clock.advance(1)).toThrow(/not a test double/);
      expect(() => plain.hosting.clock.reset()).toThrow(/not a test double/);
      expect((await plain.http.get('/-/forgekit/clock').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
      expect((await plain.http.post('/-/forgekit/clock/advance').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ ms: 1 })).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('the clock option', () => {
  it('starts the clock at a time given, which flows on from there; refuses one that is not a time', async () => {
    const started = await startHosting({ clock: '2040-03-04T05:06:07Z' });
    try {
      const now = started.hosting.clock.now().getTime();
      expect(now).toBeGreaterThanOrEqual(Date.parse('2040-03-04T05:06:07Z'));
      expect(new Date(now).getUTCFullYear()).toBe(2040);
      expect(Date.parse((await started.hosting.projects.create({ name: 'Future' })).created_at)).toBeGreaterThanOrEqual(now);
    } finally {
      await started.close();
    }
    const refusal = await createHostingService({ clock: 'soon' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BadRequestError);
    expect((refusal as BadRequestError).body()).toEqual({ message: { clock: [expect.any(String)] } });
  });
});
