// `?types=message.*,cell.online`: exact types of EVENT_TYPES or `<prefix>.*` over them.
import { EVENT_TYPES, type EventType } from './types.ts';

const PREFIXES = new Set(EVENT_TYPES.map((type) => type.slice(0, type.indexOf('.'))));
const KNOWN = new Set<string>(EVENT_TYPES);

/** The set of types the filter selects, or an error message fit for a close reason. */
export function parseTypeFilter(raw: string): { types: ReadonlySet<EventType> } | { error: string } {
  const types = new Set<EventType>();
  for (const item of raw.split(',').map((part) => part.trim())) {
    if (item === '') return { error: 'types has an empty entry' };
    const prefix = item.endsWith('.*') ? item.slice(0, -2) : null;
    if (prefix !== null && PREFIXES.has(prefix)) {
      for (const type of EVENT_TYPES) if (type.startsWith(`${prefix}.`)) types.add(type);
    } else if (KNOWN.has(item)) {
      types.add(item as EventType);
    } else {
      return { error: `unknown event type ${JSON.stringify(item.slice(0, 40))}` };
    }
  }
  return { types };
}
