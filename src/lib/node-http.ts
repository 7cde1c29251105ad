// node:http, loaded with require(). An ES import of a built-in module reads every one of its
// exports, and three of node:http's (WebSocket, CloseEvent, MessageEvent) are getters that load
// Node's bundled undici: about 12 MB more resident at start for classes Cellgate never takes
// from there (issue 24 §5). Types still come from `import type ... from 'node:http'`.
import { createRequire } from 'node:module';

export const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
