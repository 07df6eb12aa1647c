/** What `packsync state list|show` print: text for people, JSON for scripts. */
import { stringify } from 'yaml';
import type { Intent, Inventory, InventoryEntry } from '../state/inventory-types.js';

export interface ListedEntry {
  key: string;
  id: string;
  kind: string;
  /** Manifest file the entry was last applied from; null when the state does not know it (older entries). */
  file: string | null;
  superseded: boolean;
  /** A flow whose replacement is in progress: the next `apply --allow-replace` finishes it and deletes this flow. */
  replacing: boolean;
}

export interface ListedIntent {
  key: string;
  op: string;
  at: string;
}

export interface StateListing {
  stateDir: string;
  objects: ListedEntry[];
  intents: ListedIntent[];
}

export function listState(inv: Inventory, stateDir: string): StateListing {
  const byKey = <T>(entries: [string, T][]): [string, T][] => entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    stateDir,
    objects: byKey(Object.entries(inv.objects)).map(([key, e]) => ({
      key,
      id: e.id,
      kind: e.kind,
      file: e.file ?? null,
      superseded: e.superseded !== undefined,
      replacing: e.replacing !== undefined,
    })),
    intents: byKey(Object.entries(inv.intents)).map(([key, i]) => ({ key, op: i.op, at: i.at })),
  };
}

export function formatListText(l: StateListing): string {
  if (l.objects.length === 0 && l.intents.length === 0) return `The state in ${l.stateDir} is empty: packsync owns nothing there.`;
  const rows = l.objects.map((o) => [
    o.key,
    o.id,
    o.kind,
    o.file ?? '-',
    o.replacing ? 'being replaced' : o.superseded ? 'superseded' : '',
  ]);
  const lines = table(['KEY', 'LIVE ID', 'KIND', 'FILE', ''], rows);
  const superseded = l.objects.filter((o) => o.superseded).length;
  const replacing = l.objects.filter((o) => o.replacing).length;
  const notes = [superseded > 0 ? `${superseded} superseded` : '', replacing > 0 ? `${replacing} being replaced` : ''].filter(Boolean);
  lines.push('', `${l.objects.length} entries${notes.length > 0 ? ` (${notes.join(', ')})` : ''} in ${l.stateDir}.`);
  if (l.intents.length > 0) {
    // An intent is a create an interrupted apply sent but never recorded; listed apart because it
    // has no live id yet, and the next plan or apply resolves it by looking the object up.
    lines.push('', `Pending creates (${l.intents.length}), resolved by the next plan or apply:`);
    for (const i of l.intents) lines.push(`  ${i.key}  ${i.op} since ${i.at}`);
  }
  return lines.join('\n');
}

export function formatShowText(key: string, entry: InventoryEntry | undefined, intent: Intent | undefined): string {
  const parts = [key];
  if (entry) parts.push(indent(stringify(entry, { lineWidth: 0 })));
  if (intent) parts.push(`  pending create (resolved by the next plan or apply):\n${indent(stringify(intent, { lineWidth: 0 }), 4)}`);
  return parts.join('\n').trimEnd();
}

function indent(text: string, by = 2): string {
  const pad = ' '.repeat(by);
  return text
    .trimEnd()
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
}

/** Left-aligned columns; trailing blanks trimmed so an empty last column leaves no padding. */
function table(head: string[], rows: string[][]): string[] {
  const all = [head, ...rows];
  const widths = head.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  return all.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}
