// Operator webhooks (contract §11): an endpoint of the operator belongs to no organization, so
// webhooks.organization_id and webhook_deliveries.organization_id may be null (the foreign key to
// organizations stays for the rest). One table, queue and deliverer serve both kinds. An operator
// endpoint's client_id is unique among operator endpoints (the per-organization index does not
// compare nulls).
import { sql, type Kysely } from 'kysely';
import { dropNotNull } from './drop-not-null.ts';

const TABLES = ['webhooks', 'webhook_deliveries'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await dropNotNull(
    db,
    TABLES.map((table) => ({ table, column: 'organization_id' })),
    '0020',
  );
  await db.schema
    .createIndex('webhooks_operator_client_id')
    .unique()
    .on('webhooks')
    .column('client_id')
    .where(sql.ref('organization_id'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhooks_operator_client_id').execute();
}
