// Response serialization with fast-json-stringify, compiled once per process. Compiling every
// response schema of every route is a large part of building an app, and a test process builds
// many apps from the same schemas, so each compiled function is kept and reused. The key is a
// hash of the schema's content (JSON text) and of the shared schemas (`app.addSchema`) its
// `$ref`s may reach: a reused function serializes exactly what a fresh compile would (the same
// fields, undeclared ones dropped). Options are Fastify's defaults (server.ts sets no
// serializerOpts).
import { createHash } from 'node:crypto';
import fastJsonStringify from 'fast-json-stringify';
import type { App } from './types.ts';

type Serializer = (data: unknown) => string;
type Schema = Parameters<typeof fastJsonStringify>[0];

const compiled = new Map<string, Serializer>();
/** The JSON text of each shared schema (Fastify keeps its own copy per app, never changed). */
const sharedText = new WeakMap<object, string>();

function textOf(schema: object): string {
  let text = sharedText.get(schema);
  if (text === undefined) {
    text = JSON.stringify(schema);
    sharedText.set(schema, text);
  }
  return text;
}

/** What Fastify's default serializer compiler returns for `schema`, from a per-process cache. */
export function cachedSerializer(schema: object, shared: Record<string, unknown>): Serializer {
  // As Fastify's compiler does: a schema with an $id is not also passed as an external schema.
  const ownId = (schema as { $id?: unknown }).$id;
  const externals: Record<string, Schema> = {};
  const hash = createHash('sha256');
  for (const id of Object.keys(shared).sort()) {
    if (id === ownId) continue;
    externals[id] = shared[id] as Schema;
    hash.update(`${id}\u0000${textOf(shared[id] as object)}\u0000`);
  }
  const key = hash.update(`\u0001${JSON.stringify(schema)}`).digest('base64');
  let serializer = compiled.get(key);
  if (!serializer) {
    serializer = fastJsonStringify(schema as Schema, { schema: externals }) as Serializer;
    compiled.set(key, serializer);
  }
  return serializer;
}

/** Installs the cached compiler; `$ref`s resolve against the schemas added to `app`. */
export function registerSerialization(app: App): void {
  // Compiled on first use, like the validators (validation.ts): most routes of a test's app never
  // answer, and production pays a few milliseconds once per response schema.
  app.setSerializerCompiler(({ schema }) => {
    let serialize: Serializer | undefined;
    return (data: unknown) => (serialize ??= cachedSerializer(schema as object, app.getSchemas()))(data);
  });
}
