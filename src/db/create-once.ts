// Creates with a client_id (contract §2): a client_id is unique per organization and resource type,
// forever. createOnce() is the one protocol: answer the earlier resource when there is one, else
// create; when a concurrent create with the same client_id wins the unique index meanwhile, answer
// that one. An earlier resource answers only the same body (same hash) and only while not deleted.
import { sameClientIdBody } from '../lib/client-id.ts';
import { ApiError } from '../lib/errors.ts';

export interface ClientIdRow {
  id: string;
  request_hash: string;
  deleted_at?: string | null;
}

export interface CreateOnce<Row extends ClientIdRow, View> {
  /** What is created, for the message when the earlier one was deleted ("webhook"). */
  resource: string;
  /** clientIdHash() of the request body. */
  hash: string;
  /** The resource created earlier with the client_id (deleted ones too), if any. */
  earlier: () => Promise<Row | undefined>;
  /** Checks and creates the new resource; throws when the unique index refuses the client_id. */
  create: () => Promise<View>;
  /** The answer for an earlier resource. */
  view: (row: Row) => View | Promise<View>;
}

/** The created resource (created: true), or the earlier one of the same body; 409 client_id_conflict otherwise. */
export async function createOnce<Row extends ClientIdRow, View>(
  once: CreateOnce<Row, View>,
): Promise<{ created: boolean; value: View }> {
  const existing = await once.earlier();
  if (existing) return { created: false, value: await replay(once, existing) };
  try {
    return { created: true, value: await once.create() };
  } catch (error) {
    // A refusal of the request itself stands; any other failure may be a concurrent create that won.
    const raced = error instanceof ApiError ? undefined : await once.earlier();
    if (raced) return { created: false, value: await replay(once, raced) };
    throw error;
  }
}

function replay<Row extends ClientIdRow, View>(once: CreateOnce<Row, View>, existing: Row): View | Promise<View> {
  if (existing.deleted_at) {
    throw new ApiError(
      'client_id_conflict',
      `The ${once.resource} created with this client_id was deleted; client_ids are not reused.`,
    );
  }
  return once.view(sameClientIdBody(existing, once.hash));
}
