// The process entry, in plain JavaScript so that the compile cache is on before any TypeScript
// loads: a start whose modules are all cached then never loads Node's type stripper (a
// WebAssembly module of about 8 MB resident). The cache lives in os.tmpdir()/node-compile-cache,
// each entry checked against its source; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('./main.ts');
