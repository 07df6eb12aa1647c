/**
 * The parts of a storage connection string that are secrets, for log and error scrubbing. Kept
 * apart from open-state.ts so the CLI's error path can use it without loading the stores.
 */
export function connectionSecrets(connection: string | undefined): string[] {
  if (!connection) return [];
  const parts = connection
    .split(';')
    .map((kv) => /^(AccountKey|SharedAccessSignature)=(.+)$/i.exec(kv.trim())?.[2])
    .filter((v): v is string => v !== undefined && v.length > 0);
  return [connection, ...parts];
}
