// Drafts, contact lists and ignore lists live under a cell (/v1/cells/{cell_id}/...) or a pod
// (/v1/pods/{pod_id}/...): the scope. Resolving one checks that the organization owns it (404
// otherwise: unknown, released or deleted, or another organization's).
import type { CellsPort } from './ports.ts';
import type { PodsService } from './service.ts';

export type ScopeKind = 'cell' | 'pod';

export interface Scope {
  kind: ScopeKind;
  id: string;
  organizationId: string;
}

/** The scope columns of a row (exactly one of them set). */
export const scopeColumns = (scope: Scope) => ({
  cell_id: scope.kind === 'cell' ? scope.id : null,
  pod_id: scope.kind === 'pod' ? scope.id : null,
});

export class Scopes {
  private readonly cells: CellsPort;
  private readonly pods: PodsService;

  constructor(deps: { cells: CellsPort; pods: PodsService }) {
    ({ cells: this.cells, pods: this.pods } = deps);
  }

  async resolve(organizationId: string, kind: ScopeKind, id: string): Promise<Scope> {
    if (kind === 'cell') await this.cells.getOwned(organizationId, id);
    else await this.pods.owned(organizationId, id);
    return { kind, id, organizationId };
  }
}
