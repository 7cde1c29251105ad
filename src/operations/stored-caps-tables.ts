// The per-owner counters of stored resources (migration 0027, src/operations/stored-caps.ts): the
// owner is an organization, or a cell or pod for its ignore list.
export interface StoredCountsTable {
  owner_id: string;
  resource: string;
  count: number;
}

export interface StoredCapsTables {
  stored_counts: StoredCountsTable;
}
