// Which pod cell a message goes out from (contract §5): a recipient who already has a
// conversation with an active cell of the pod keeps that cell (the one with the latest activity,
// when several); anyone else goes to the next active cell in rotation. A recipient who texted STOP
// to any cell of the pod is not messaged from another one.
import type { ActiveCell } from './service.ts';

export interface RecipientState {
  conversations: readonly { cell_id: string; participant: string; last_message_at: string }[];
  optOuts: readonly { cell_id: string; participant: string }[];
}

/** Per participant, the active cell it is stuck to. */
export function stickyCells(state: RecipientState, active: readonly ActiveCell[]): Map<string, string> {
  const activeIds = new Set(active.map((cell) => cell.id));
  const latest = new Map<string, { cellId: string; at: string }>();
  for (const conversation of state.conversations) {
    if (!activeIds.has(conversation.cell_id)) continue;
    const seen = latest.get(conversation.participant);
    if (!seen || seen.at < conversation.last_message_at)
      latest.set(conversation.participant, { cellId: conversation.cell_id, at: conversation.last_message_at });
  }
  return new Map([...latest].map(([participant, { cellId }]) => [participant, cellId]));
}

/** Participants who texted STOP to any of the cells. */
export function optedOut(state: RecipientState): Set<string> {
  return new Set(state.optOuts.map((row) => row.participant));
}

/**
 * Spreads recipients over cells: each goes to the cell with the fewest messages of the job so far
 * (ties to the oldest cell), so shares stay even around the sticky ones. `load` is updated.
 */
export function leastLoaded(
  active: readonly ActiveCell[],
  load: Map<string, number>,
  eligible: (cellId: string) => boolean = () => true,
): string | null {
  let best: string | null = null;
  for (const cell of active) {
    if (!eligible(cell.id)) continue;
    if (best === null || (load.get(cell.id) ?? 0) < (load.get(best) ?? 0)) best = cell.id;
  }
  if (best !== null) load.set(best, (load.get(best) ?? 0) + 1);
  return best;
}
