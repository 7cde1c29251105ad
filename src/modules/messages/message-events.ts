// Message events (message.sent, .delivered, .failed, .received) carry the message view.
import type { Executor } from '../../db/schema.ts';
import type { EventsService } from '../events/service.ts';
import type { EventType } from '../events/types.ts';
import type { MessagesTable } from './tables.ts';
import { messageView } from './views.ts';

export function emitMessageEvent(events: EventsService, tx: Executor, message: MessagesTable, type: EventType) {
  return events.emit(tx, { organizationId: message.organization_id, type, data: messageView(message) });
}
