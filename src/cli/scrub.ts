/**
 * Known secret values replaced wherever they appear in a text (a log line, an error): its own
 * module, so printing an error does not load the logger (pino) on every start of the CLI.
 */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[REDACTED]');
  return out;
}
