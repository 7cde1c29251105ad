// The database as Kysely sees it: each module declares its own tables beside its repository.
import type { Kysely, Transaction } from 'kysely';
import type { IdempotencyTables } from '../operations/idempotency-tables.ts';
import type { AdminTables } from '../modules/admin/tables.ts';
import type { BillingTables } from '../modules/billing/tables.ts';
import type { CellsTables } from '../modules/cells/tables.ts';
import type { DevicesTables } from '../modules/devices/tables.ts';
import type { EventsTables } from '../modules/events/tables.ts';
import type { McpTables } from '../modules/mcp/tables.ts';
import type { MessagesTables } from '../modules/messages/tables.ts';
import type { OAuthTables } from '../modules/oauth/tables.ts';
import type { OrganizationsTables } from '../modules/organizations/tables.ts';
import type { PodsTables } from '../modules/pods/tables.ts';
import type { WebhooksTables } from '../modules/webhooks/tables.ts';
import type { StoredCapsTables } from '../operations/stored-caps-tables.ts';

export interface DB
  extends
    OrganizationsTables,
    AdminTables,
    IdempotencyTables,
    DevicesTables,
    CellsTables,
    MessagesTables,
    EventsTables,
    WebhooksTables,
    PodsTables,
    BillingTables,
    OAuthTables,
    McpTables,
    StoredCapsTables {}

/** A query runner: the database itself or an open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;
