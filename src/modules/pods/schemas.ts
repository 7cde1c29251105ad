// Request pieces shared by the routes of the pods module.
import { Type, type TObject, type TOptional, type TProperties, type TString } from 'typebox';
import { IdParam } from '../../http/schemas.ts';

export const ClientId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Your unique id for this create (per organization, forever); makes retries safe.',
});

// At least one visible character: a name of spaces is no name.
export const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: '1-100 characters.' });

/** Up to 10,000 numbers; each is validated and normalised to E.164 by the service (bad ones by index). */
export const Numbers = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 10_000,
  description:
    'Phone numbers in E.164 (normalised); at most 10,000. A bad one is reported by its index (numbers.<i>) and nothing is written.',
});

/** An id as an operation's input field (IdParam's schema, with its name known to the types). */
export const id = (prefix: string) => Type.String({ minLength: 1, maxLength: 64, description: `${prefix}_... id` });

export const CellIds = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 1000,
  description: 'The cells of the pod (the whole set). Each must be a live cell of the organization in no other pod.',
});

export const PodPath = IdParam('id', 'pod');
export const CellScopePath = IdParam('cell_id', 'cell');
export const PodScopePath = IdParam('pod_id', 'pod');

/** The path parameters of a route under both /v1/cells/{cell_id} and /v1/pods/{pod_id}, with `extra` after them. */
export function scopedParams(kind: 'cell' | 'pod', extra: Record<string, ReturnType<typeof Type.String>> = {}) {
  const scope = kind === 'cell' ? CellScopePath : PodScopePath;
  return Type.Object({ ...scope.properties, ...extra });
}

export const idOf = (kind: 'cell' | 'pod', params: { cell_id?: string; pod_id?: string }) =>
  String(kind === 'cell' ? params.cell_id : params.pod_id);

/**
 * The input of an operation under a cell or a pod: its scope's id (cell_id or pod_id), then
 * `fields`. Typed with both ids optional: `idOf` reads the one of the kind.
 */
export function scopedInput<P extends TProperties>(kind: 'cell' | 'pod', fields: P) {
  return Type.Object(
    { ...(kind === 'cell' ? { cell_id: id('cell') } : { pod_id: id('pod') }), ...fields },
    { additionalProperties: false },
  ) as unknown as TObject<P & { cell_id: TOptional<TString>; pod_id: TOptional<TString> }>;
}

/** `/v1/cells/:cell_id` or `/v1/pods/:pod_id`. */
export const scopePrefix = (kind: 'cell' | 'pod') => (kind === 'cell' ? '/v1/cells/:cell_id' : '/v1/pods/:pod_id');

/** Cell or Pod, for operation ids: `createCellDraft`, `createPodDraft`. */
export const scopeWord = (kind: 'cell' | 'pod') => (kind === 'cell' ? 'Cell' : 'Pod');
