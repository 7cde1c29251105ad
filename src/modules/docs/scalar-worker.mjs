// The worker thread's entry, in plain JavaScript for the same reason as src/entry.mjs: the compile
// cache on before any TypeScript loads (a worker does not share its service's), so a warm start
// skips the type stripper. The work is in scalar-worker.ts.
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('./scalar-worker.ts');
