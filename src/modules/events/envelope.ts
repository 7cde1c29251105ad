// Stored rows as public envelopes and as ready-to-send stream frames.
import type { EventRow } from './repository.ts';
import type { EventEnvelope, EventType } from './types.ts';

export function envelopeOf(row: EventRow): EventEnvelope {
  return {
    id: row.id,
    type: row.type as EventType,
    created_at: row.created_at,
    organization_id: row.organization_id,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

/** A committed event as the stream sees it: its order and a frame encoded once for every client. */
export class StreamEvent {
  readonly seq: number;
  readonly organizationId: string;
  readonly type: string;
  private readonly row: EventRow;
  private encoded: Buffer | null = null;

  constructor(row: EventRow) {
    this.seq = row.seq;
    this.organizationId = row.organization_id;
    this.type = row.type;
    this.row = row;
  }

  /** The public envelope (data parsed): for in-process subscribers that filter on it (the console's live view). */
  get envelope(): EventEnvelope {
    return envelopeOf(this.row);
  }

  /** `{"type":"event","event":{...envelope}}`; the stored data is already JSON, so it is spliced in, not re-parsed. */
  get frame(): Buffer {
    if (!this.encoded) {
      const { id, type, created_at, organization_id, data } = this.row;
      this.encoded = Buffer.from(
        `{"type":"event","event":{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"created_at":${JSON.stringify(created_at)},"organization_id":${JSON.stringify(organization_id)},"data":${data}}}`,
      );
    }
    return this.encoded;
  }
}
