/**
 * Every Azure SDK call of the remote state goes through `call`: a failure becomes a StateError that
 * names the step, the HTTP status and the service's error code only, because the SDK's own messages
 * may include request URLs, and a SAS token in a connection string travels in them.
 */
import { StateError } from './state-errors.js';

export async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const r = e as { statusCode?: number; code?: string; details?: { errorCode?: string } };
    const azureCode = r.details?.errorCode ?? r.code;
    const err = new StateError(
      'STATE_REMOTE_ERROR',
      `cannot ${what} (${r.statusCode ?? 'no response'}${azureCode ? ` ${azureCode}` : ''})${hint(r.statusCode, azureCode)}`,
    );
    Object.assign(err, { status: r.statusCode, azureCode });
    throw err;
  }
}

/** What to check, for the failures whose cause is the configuration rather than the service. */
function hint(status: number | undefined, code: string | undefined): string {
  if (status === 403)
    return ': the storage account refused the credentials; check AZURE_STORAGE_CONNECTION_STRING (account name and key, or the SAS and its permissions)';
  if (code === 'ResourceNotFound' || code === 'AccountNotFound' || code === 'ENOTFOUND')
    return ': the storage account was not found; check the account in AZURE_STORAGE_CONNECTION_STRING';
  // Azurite older than the SDK refuses its x-ms-version header this way (docs/reconcile.md, "Remote state").
  if (status === 400 && code === 'InvalidHeaderValue')
    return ': the storage endpoint refused a request header, which is how an Azurite older than the SDK refuses its API version; start Azurite with --skipApiVersionCheck, or use a newer one';
  if (status === undefined)
    return ': the storage endpoint did not answer; check the endpoint in AZURE_STORAGE_CONNECTION_STRING and the network';
  return '';
}
