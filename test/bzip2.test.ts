/**
 * tar.bz2's compression (src/git/bzip2.ts, bzip2's own library compiled to WebAssembly): what it writes, the bzip2
 * program and Python's bz2 module read back byte for byte, whatever the input, however it is fed, in one stream or
 * in several.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bzip2ed } from '../src/git/bzip2.js';

const installed = (command: string, ...args: string[]) => spawnSync(command, args).status === 0;
const hasBzip2 = installed('bzip2', '--help');
const hasPythonBz2 = installed('python3', '-c', 'import bz2');

/** The input bzip2ed, fed in pieces of `piece` bytes; the streams it wrote. */
async function compress(input: Uint8Array, piece = 65536): Promise<Buffer[]> {
  async function* pieces() {
    for (let offset = 0; offset < input.length; offset += piece) yield input.subarray(offset, offset + piece);
  }
  const written: Buffer[] = [];
  for await (const stream of bzip2ed(pieces())) written.push(Buffer.from(stream));
  return written;
}

const bunzip2 = (data: Buffer) => execFileSync('bzip2', ['-dc'], { input: data, maxBuffer: 256 * 1024 * 1024 });
const pythonBunzip2 = (data: Buffer) =>
  execFileSync('python3', ['-c', 'import bz2, sys; sys.stdout.buffer.write(bz2.decompress(sys.stdin.buffer.read()))'], {
    input: data,
    maxBuffer: 256 * 1024 * 1024,
  });

/** Runs of every length about the limits of bzip2's run-length encoding (4 and 255), of every byte value. */
function runs(): Buffer {
  const parts: Buffer[] = [];
  for (let value = 0; value < 256; value++)
    for (const length of [1, 3, 4, 5, 254, 255, 256, 259, 600]) parts.push(Buffer.alloc(length, value));
  return Buffer.concat(parts);
}

const source = () => Buffer.concat(Array.from({ length: 120 }, () => readFileSync(new URL('../src/git/archive.ts', import.meta.url))));

const INPUTS: [string, () => Buffer, number][] = [
  ['nothing', () => Buffer.alloc(0), 1],
  ['one byte', () => Buffer.from('a'), 1],
  ['runs about the limits', runs, 1],
  ['source text', source, 1],
  ['2 MB of random bytes (larger once compressed)', () => randomBytes(2_000_000), 1],
  [
    '16 MB of text and random bytes, in three streams',
    () => Buffer.concat([source(), randomBytes(8_000_000), Buffer.alloc(5_000_000, 'forgekit ')]),
    3,
  ],
];

describe('bzip2ed', () => {
  it.each(INPUTS)('writes %s as bzip2 streams the bzip2 program and Python read back', async (_name, make, streams) => {
    const input = make();
    const written = await compress(input);
    expect(written.map((stream) => stream.subarray(0, 4).toString('latin1'))).toEqual(Array.from({ length: streams }, () => 'BZh9'));
    const output = Buffer.concat(written);
    if (hasBzip2) expect(Buffer.compare(bunzip2(output), input)).toBe(0);
    if (hasPythonBz2) expect(Buffer.compare(pythonBunzip2(output), input)).toBe(0);
  });

  it('writes the same bytes however its input is cut, as small as bzip2 -9 makes them', async () => {
    const input = Buffer.concat([runs(), randomBytes(50_000), Buffer.from('forgekit '.repeat(100_000))]);
    const whole = Buffer.concat(await compress(input, input.length));
    expect(Buffer.concat(await compress(input, 7)).equals(whole)).toBe(true);
    if (hasBzip2) expect(whole.equals(execFileSync('bzip2', ['-9c'], { input, maxBuffer: 64 * 1024 * 1024 }))).toBe(true);
  });
});
