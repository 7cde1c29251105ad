// The codes' operation (src/operations): a cell's verification codes, newest first, with an
// optional long-poll for the first one after `since`. MCP's wait_for_code (mcp/operations.ts) waits
// on the same CodesService.list with its own arguments (timeout_s, from, service) and answer.
import { Type } from 'typebox';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import { IdField } from '../../http/schemas.ts';
import { defineOperation } from '../../operations/operation.ts';
import { CodeList, CodesQuery } from './schemas.ts';
import { MAX_WAIT_S, type CodesService } from './service.ts';

/** `waits`: concurrent waiting calls per organization (a call without wait holds nothing). */
export function codeOperations(codes: CodesService, waits: ConnectionCap) {
  return {
    listCodes: defineOperation({
      name: 'list_codes',
      summary: 'List verification codes of a cell',
      description: `One-time codes found in the cell's inbound messages, newest first. With wait, long-polls until the first code after since arrives (at most ${MAX_WAIT_S} s; an organization holds a limited number of waiting requests, 429 \`rate_limited\` beyond).`,
      scope: 'messages:read',
      idempotency: 'none',
      input: Type.Object({ cell_id: IdField('cell'), ...CodesQuery.properties }, { additionalProperties: false }),
      output: CodeList,
      run: async (ctx, { cell_id, ...query }) => {
        const waitMs = (query.wait ?? 0) * 1000;
        const list = () => codes.list(ctx.organizationId, cell_id, { ...query, waitMs }, ctx.signal);
        const { codes: page, next_cursor } = waitMs > 0 ? await waits.hold(ctx.organizationId, list) : await list();
        return { codes: page, next_cursor };
      },
    }),
  };
}

export type CodeOperations = ReturnType<typeof codeOperations>;
