// The standalone server (`forgekit serve`, what `npm start` runs), driven as a user would.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'forgekit-example-'));
const port = 20000 + Math.floor(Math.random() * 20000);
const server = spawn(process.execPath, [cli, 'serve', '--port', String(port), '--data-dir', dataDir], {
  env: { ...process.env, FORGEKIT_ROOT_TOKEN: 'example-root-token-1' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const url = await new Promise<string>((resolve, reject) => {
    server.stdout.on('data', (chunk: Buffer) => {
      const match = /forgekit listening on (\S+)/.exec(chunk.toString());
      if (match) resolve(match[1]);
    });
    server.once('exit', (code) => reject(new Error(`forgekit serve exited with ${code}`)));
  });
  console.log('server at', url);
  const response = await fetch(`${url}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': 'example-root-token-1' } });
  console.log(response.status, await response.json());
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
