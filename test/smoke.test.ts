import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
beforeAll(async () => {
  t = await startHosting();
});
afterAll(() => t.close());

describe('smoke', () => {
  it('answers GET /user', async () => {
    const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(res.status).toBe(200);
    expect(res.body.username).toBe('root');
  });
});
