// A module's REST routes in one line each: the operation, its method and URL, and what its answer is.
import { Described } from '../http/schemas.ts';
import type { App } from '../http/types.ts';
import type { AnyOperation } from './operation.ts';
import type { RestBinder, RestBinding } from './rest.ts';

/** Binds operations to REST under `tags`, each answering its output with `description` (`more`: the rest of its binding). */
export const restRoutes =
  (app: App, rest: RestBinder, tags: string[]) =>
  (op: AnyOperation, method: RestBinding['method'], url: string, description: string, more?: Partial<RestBinding>) =>
    rest.bind(app, op, { method, url, tags, response: Described(op.output, description), ...more });
