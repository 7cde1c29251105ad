// Payer wallets (contract §7): an organization claims an address, unverified, and proves control
// of it by signing its verification message; only a verified wallet's deposits are its own, and a
// (network, address) is verified for at most one organization.
import type { Static } from 'typebox';
import { unlessTaken } from '../../db/errors.ts';
import { transact } from '../../db/transaction.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError, invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import { canonicalAddress, type Network } from './networks.ts';
import type { BillingRepository } from './repository.ts';
import type { X402Wallet } from './schemas.ts';
import type { X402WalletsTable } from './tables.ts';
import { checkProof, SIGNATURE_FORMAT, verificationMessage, verificationNonce } from './wallet-proof.ts';

export type WalletView = Static<typeof X402Wallet>;

const walletTaken = () => new ApiError('wallet_already_registered', 'This wallet is verified by another organization.');

function walletView(row: X402WalletsTable): WalletView {
  return {
    wallet_id: row.id,
    organization_id: row.organization_id,
    network: row.network,
    address: row.address,
    ...(row.label === null ? {} : { label: row.label }),
    created_at: row.created_at,
    verification: {
      status: row.verified_at === null ? 'unverified' : 'verified',
      message: verificationMessage(row),
      ...(row.verified_at === null ? {} : { verified_at: row.verified_at }),
    },
  };
}

export class WalletsService {
  private readonly deps: { repo: BillingRepository; clock: Clock };

  constructor(deps: WalletsService['deps']) {
    this.deps = deps;
  }

  /**
   * Registers a claim of a payer wallet, unverified until verifyWallet. Only a verified owner
   * blocks others (409); unverified claims of one address by several organizations coexist.
   */
  async createWallet(
    organizationId: string,
    input: { network: Network; address: string; label?: string },
  ): Promise<{ created: boolean; wallet: WalletView }> {
    const address = canonicalAddress(input.network, input.address);
    if (!address) {
      throw invalidField(
        'address',
        'invalid_format',
        input.network === 'base'
          ? 'address must be a 0x EVM address of 40 hex digits with a valid EIP-55 checksum.'
          : 'address must be a base58 Solana public key (32 bytes).',
      );
    }
    const owner = await this.deps.repo.wallet(this.deps.repo.db, { network: input.network, address }, true);
    if (owner && owner.organization_id !== organizationId) throw walletTaken();
    const row: X402WalletsTable = {
      id: newId('wal', this.deps.clock),
      organization_id: organizationId,
      network: input.network,
      address,
      label: input.label ?? null,
      created_at: this.deps.clock.now().toISOString(),
      verification_nonce: verificationNonce(),
      verified_at: null,
    };
    if (await this.deps.repo.insertWallet(this.deps.repo.db, row)) return { created: true, wallet: walletView(row) };
    const existing = await this.deps.repo.wallet(this.deps.repo.db, {
      organization_id: organizationId,
      network: input.network,
      address,
    });
    if (!existing)
      throw new ApiError('conflict', 'The wallet was removed while it was registered again; register it once more.');
    return { created: false, wallet: walletView(existing) };
  }

  /**
   * Proves control of a claimed wallet with the signature of its verification message: the
   * wallet is then verified (deposits from it are this organization's; other organizations'
   * claims of the address stay unverified and get nothing). Verifying again answers it again.
   */
  async verifyWallet(organizationId: string, walletId: string, signature: string): Promise<WalletView> {
    const wallet = await this.deps.repo.wallet(this.deps.repo.db, { organization_id: organizationId, id: walletId });
    if (!wallet) throw notFound('wallet');
    const proof = await checkProof(wallet.network, wallet.address, verificationMessage(wallet), signature);
    if (proof === 'malformed') throw invalidField('signature', 'invalid_format', SIGNATURE_FORMAT[wallet.network]);
    if (proof === 'invalid')
      throw invalidField(
        'signature',
        'invalid_signature',
        `signature is not the ${wallet.address} key's signature of this wallet's verification message.`,
      );
    if (wallet.verified_at !== null) return walletView(wallet);
    const now = this.deps.clock.now().toISOString();
    // Two organizations proving the same address at once: the unique index lets one through.
    await unlessTaken(
      transact(this.deps.repo.db, async (tx) => {
        const owner = await this.deps.repo.wallet(tx, { network: wallet.network, address: wallet.address }, true);
        if (owner && owner.organization_id !== organizationId) throw walletTaken();
        await this.deps.repo.verifyWallet(tx, wallet.id, now);
      }),
      walletTaken,
    );
    const verified = await this.deps.repo.wallet(this.deps.repo.db, { organization_id: organizationId, id: walletId });
    if (!verified) throw notFound('wallet');
    return walletView(verified);
  }

  async listWallets(organizationId: string, query: PageQuery) {
    const page = await pageById(query, (before, count) => this.deps.repo.listWallets(organizationId, before, count));
    return { wallets: page.items.map(walletView), next_cursor: page.next_cursor };
  }

  async deleteWallet(organizationId: string, walletId: string): Promise<void> {
    if (!(await this.deps.repo.deleteWallet(organizationId, walletId))) throw notFound('wallet');
  }
}
