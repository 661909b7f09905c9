// Fails when a line of the code is wider than the formatter's width (biome.json's formatter.lineWidth): the formatter
// does not break strings, templates or comments, so those stay as wide as they were written. Checks the git-tracked
// .ts, .mjs, .js and .cjs files but src/types.ts (scripts/types.mjs generates it) and those biome.json leaves out.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const biome = JSON.parse(readFileSync(`${root}biome.json`, 'utf8'));
const width = biome.formatter.lineWidth;

/** A glob of biome.json (`**`, `*`, `?`) as a regular expression over a path from the root. */
function globRegExp(glob) {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  const pattern = escaped.replace(/\*\*\/|\*\*|\*|\?/g, (token) =>
    token === '**/' ? '(?:.*/)?' : token === '**' ? '.*' : token === '*' ? '[^/]*' : '[^/]',
  );
  return new RegExp(`^${pattern}$`);
}
const includes = biome.files?.includes ?? ['**'];
const included = includes.filter((glob) => !glob.startsWith('!')).map(globRegExp);
const excluded = includes.filter((glob) => glob.startsWith('!')).map((glob) => globRegExp(glob.replace(/^!+/, '')));
const checked = (file) => included.some((glob) => glob.test(file)) && !excluded.some((glob) => glob.test(file));

const files = execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.mjs', '*.js', '*.cjs'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file && file !== 'src/types.ts' && checked(file));

let wide = 0;
for (const file of files) {
  for (const [index, line] of readFileSync(`${root}${file}`, 'utf8').split('\n').entries()) {
    const length = [...line.replace(/\r$/, '')].length;
    if (length > width) {
      console.log(`${file}:${index + 1}: ${length} characters`);
      wide++;
    }
  }
}
if (wide > 0) {
  console.log(`${wide} line${wide === 1 ? '' : 's'} over the width of ${width}`);
  process.exit(1);
}
