// `npm run bench [-- flags]`: every benchmark bench/*.ts (not lib.ts, not this file) in name order,
// each with the same flags. Exits non-zero when any of them failed.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dirname;
const benches = readdirSync(dir)
  .filter((name) => name.endsWith('.ts') && name !== 'lib.ts' && name !== 'run.ts')
  .sort();
let failed = 0;
for (const name of benches) {
  process.stdout.write(`\n== bench/${name}\n`);
  const result = spawnSync(process.execPath, [join(dir, name), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
