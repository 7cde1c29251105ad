import type { EmailedCodeRow } from '../../db/emailed-code.ts';

export interface OrganizationsTable {
  id: string;
  name: string;
  email: string;
  status: 'unverified' | 'active' | 'suspended';
  created_at: string;
  updated_at: string;
  verified_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  name: string | null;
  prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface OrganizationsTables {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  verification_codes: EmailedCodeRow;
}
