// How the console runs an operation: through invoke, as the session's console principal, so what a
// form may do and what it is refused is what the API's route would answer (the same errors).
import { ApiError, type ErrorCode } from '../../lib/errors.ts';
import type { InvokeOptions, Invoker } from '../../operations/invoke.ts';
import type { AnyOperation, ConsolePrincipal } from '../../operations/operation.ts';
import { ALL_SCOPES } from '../organizations/service.ts';
import type { ConsoleSession } from './service.ts';

/** The session as the caller of an operation: its organization (active: only those sign in) with every scope. */
export const consolePrincipal = (session: ConsoleSession): ConsolePrincipal => ({
  credentialType: 'console_session',
  organizationId: session.organizationId,
  organizationName: session.organizationName,
  organizationStatus: 'active',
  scopes: [...ALL_SCOPES],
});

/** Runs an operation as the session; a replayed answer (a form's key sent twice) is read back, a refusal thrown again. */
export async function actAsConsole<T>(
  invoker: Invoker,
  session: ConsoleSession,
  op: AnyOperation,
  input: Record<string, unknown>,
  options: InvokeOptions = {},
): Promise<T> {
  const outcome = await invoker.invoke<T>(op, consolePrincipal(session), input, options);
  if (!outcome.replayed) return outcome.value;
  const body = JSON.parse(outcome.body) as T & { code: ErrorCode; message: string };
  if (outcome.status >= 400) throw new ApiError(body.code, body.message);
  return body;
}

/** A create from a form with a client_id: sent twice it creates once; sent again edited, it creates another (a fresh id). */
export async function createFromForm<T>(
  create: (clientId: string) => Promise<T>,
  clientId: string,
  freshClientId: () => string,
): Promise<T> {
  try {
    return await create(clientId);
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 'client_id_conflict')) throw error;
    return create(freshClientId());
  }
}
