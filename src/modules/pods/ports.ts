// What the pods module needs from cells, messages and devices, stated structurally so the modules
// meet only at these service methods.
import type { CellsService } from '../cells/service.ts';
import type { DevicesService } from '../devices/service.ts';
import type { MessagesService } from '../messages/service.ts';

export type CellsPort = Pick<CellsService, 'getOwned' | 'cellsAmong' | 'podCells' | 'setPod'>;

export type MessagesPort = Pick<
  MessagesService,
  'send' | 'recipientsAmong' | 'statusesOf' | 'queueRoom' | 'receivedSince' | 'cancelQueuedAmong'
>;

export type DevicesPort = Pick<DevicesService, 'assignment'>;
