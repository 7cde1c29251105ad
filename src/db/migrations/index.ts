// The one migration set, applied in key order on SQLite and PostgreSQL. Append only.
import type { Migration } from 'kysely';
import * as foundation from './0001_foundation.ts';
import * as cellsDevices from './0002_cells_devices.ts';
import * as messages from './0003_messages.ts';
import * as events from './0004_events.ts';
import * as webhooks from './0005_webhooks.ts';
import * as messageFailedAt from './0006_message_failed_at.ts';
import * as pods from './0007_pods.ts';
import * as billing from './0008_billing.ts';
import * as billingBalance from './0009_billing_balance.ts';
import * as stripeCheckout from './0010_stripe_checkout.ts';
import * as mpp from './0011_mpp.ts';
import * as x402Deposits from './0012_x402_deposits.ts';
import * as oauth from './0013_oauth.ts';
import * as consoleSignIn from './0014_console.ts';
import * as x402ReplayWallets from './0015_x402_replay_wallets.ts';
import * as oauthExpiry from './0016_oauth_expiry.ts';
import * as deviceCapabilities from './0017_device_capabilities.ts';
import * as deviceHeartbeats from './0018_device_heartbeats.ts';
import * as fleetHealth from './0019_fleet_health.ts';
import * as operatorWebhooks from './0020_operator_webhooks.ts';
import * as operatorSessions from './0021_operator_sessions.ts';
import * as messageCodes from './0022_message_codes.ts';
import * as scheduledSends from './0023_scheduled_sends.ts';
import * as webhookAttemptExchange from './0024_webhook_attempt_exchange.ts';
import * as mcpTasks from './0025_mcp_tasks.ts';
import * as broadcastSendNow from './0026_broadcast_send_now.ts';
import * as storedCounts from './0027_stored_counts.ts';
import * as smsgate from './0029_smsgate.ts';
import * as simCells from './0030_sim_cells.ts';
import * as simNumbers from './0031_sim_numbers.ts';
import * as discardedDrafts from './0032_discarded_drafts.ts';
import * as claimsCoverSegments from './0033_claims_cover_segments.ts';
import * as queuedCoverSegments from './0034_queued_cover_segments.ts';

export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_cells_devices': cellsDevices,
  '0003_messages': messages,
  '0004_events': events,
  '0005_webhooks': webhooks,
  '0006_message_failed_at': messageFailedAt,
  '0007_pods': pods,
  '0008_billing': billing,
  '0009_billing_balance': billingBalance,
  '0010_stripe_checkout': stripeCheckout,
  '0011_mpp': mpp,
  '0012_x402_deposits': x402Deposits,
  '0013_oauth': oauth,
  '0014_console': consoleSignIn,
  '0015_x402_replay_wallets': x402ReplayWallets,
  '0016_oauth_expiry': oauthExpiry,
  '0017_device_capabilities': deviceCapabilities,
  '0018_device_heartbeats': deviceHeartbeats,
  '0019_fleet_health': fleetHealth,
  '0020_operator_webhooks': operatorWebhooks,
  '0021_operator_sessions': operatorSessions,
  '0022_message_codes': messageCodes,
  '0023_scheduled_sends': scheduledSends,
  '0024_webhook_attempt_exchange': webhookAttemptExchange,
  '0025_mcp_tasks': mcpTasks,
  '0026_broadcast_send_now': broadcastSendNow,
  '0027_stored_counts': storedCounts,
  '0029_smsgate': smsgate,
  '0030_sim_cells': simCells,
  '0031_sim_numbers': simNumbers,
  '0032_discarded_drafts': discardedDrafts,
  '0033_claims_cover_segments': claimsCoverSegments,
  '0034_queued_cover_segments': queuedCoverSegments,
};
