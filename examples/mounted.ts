// forgekit inside an existing Express app, under /git.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHostingService } from 'forgekit';

const hosting = await createHostingService({ rootToken: 'example-root-token' });
const app = express();
app.get('/', (_req, res) => {
  res.send('the host app');
});
app.use('/git', hosting.router()); // serves /git/api/v4/...

const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
try {
  const response = await fetch(`${base}/git/api/v4/users?per_page=1`, { headers: { 'PRIVATE-TOKEN': 'example-root-token' } });
  const users = (await response.json()) as { username: string }[];
  console.log(response.status, 'users:', response.headers.get('x-total'), 'first:', users[0].username);
  console.log((await fetch(`${base}/`)).status, 'from the host app');
} finally {
  server.close();
  await hosting.close();
}
