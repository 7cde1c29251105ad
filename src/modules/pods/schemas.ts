// Request pieces and the operation defaults shared by the operations of the pods module.
import { Type, type TObject, type TOptional, type TProperties, type TString } from 'typebox';
import { IdField } from '../../http/schemas.ts';
import { defineOperation, type Operation } from '../../operations/operation.ts';
import { CELL_EXAMPLE } from '../cells/schemas.ts';
import { POD_EXAMPLE } from './views.ts';

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

/** An id as an operation's input field (a path parameter of its routes). */
export const id = IdField;

export const CellIds = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 1000,
  description: 'The cells of the pod (the whole set). Each must be a live cell of the organization in no other pod.',
});

export const idOf = (kind: 'cell' | 'pod', params: { cell_id?: string; pod_id?: string }) =>
  String(kind === 'cell' ? params.cell_id : params.pod_id);

/**
 * The input of an operation under a cell or a pod: its scope's id (cell_id or pod_id), then
 * `fields`. Typed with both ids optional: `idOf` reads the one of the kind. Each example of
 * `options` is given the scope's example id.
 */
export function scopedInput<P extends TProperties>(
  kind: 'cell' | 'pod',
  fields: P,
  options: { description?: string; examples?: object[] } = {},
) {
  const scope = kind === 'cell' ? { cell_id: CELL_EXAMPLE.id } : { pod_id: POD_EXAMPLE.id };
  const { examples, ...rest } = options;
  return Type.Object(
    { ...(kind === 'cell' ? { cell_id: id('cell') } : { pod_id: id('pod') }), ...fields },
    {
      additionalProperties: false,
      ...rest,
      ...(examples ? { examples: examples.map((example) => ({ ...scope, ...example })) } : {}),
    },
  ) as unknown as TObject<P & { cell_id: TOptional<TString>; pod_id: TOptional<TString> }>;
}

/** `/v1/cells/:cell_id` or `/v1/pods/:pod_id`. */
export const scopePrefix = (kind: 'cell' | 'pod') => (kind === 'cell' ? '/v1/cells/:cell_id' : '/v1/pods/:pod_id');

type Defaulted = 'idempotency' | 'errors' | 'description';

/** An operation of the module; unless it says, it takes no idempotency key, adds no errors and has no description. */
export const podOperation = <In extends TObject, Out>(
  op: Omit<Operation<In, Out>, Defaulted> & Partial<Pick<Operation<In, Out>, Defaulted>>,
) => defineOperation<In, Out>({ idempotency: 'none', description: '', ...op });
