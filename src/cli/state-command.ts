/**
 * `packsync state list|show|mv|rm`: inspect and repair the state (docs/architecture.md). Offline by design: no
 * API URL or key is needed and no API call is made, so a state can be repaired while the service is
 * unreachable, and `rm` can never delete a live object (it only forgets it).
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import type { Inventory, InventoryEntry } from '../state/inventory-types.js';
import { addOutputOptions, openCommandState } from './common.js';
import type { CliIo } from './io.js';
import { forgetEntries, moveEntry, supersededKeys } from './state-edit.js';
import { formatListText, formatShowText, listState } from './state-format.js';
import { checkManifestName, parseStateKey, requireKnown } from './state-keys.js';
import type { StateKey } from './state-keys.js';

interface StateOptions {
  stateDir?: string;
  stateUrl?: string;
}

interface OutputOptions extends StateOptions {
  output: 'text' | 'json';
}

export function registerStateCommand(program: Command, io: CliIo): void {
  const state = program
    .command('state')
    .description('inspect and repair the state (what packsync owns); offline: no API call, rm forgets and never deletes live');
  // The state flags and the common output flags (docs/architecture.md); no state command logs or colours.
  const stateDir = (c: Command): Command =>
    addOutputOptions(c, { colour: false })
      .option('--state-dir <dir>', 'where the inventory lives (env PACKSYNC_STATE_DIR, default ./.packsync)')
      .option(
        '--state-url <url>',
        'remote state, azblob://CONTAINER/PREFIX (env PACKSYNC_STATE_URL; credentials from AZURE_STORAGE_CONNECTION_STRING)',
      );
  const sub: StateSubcommands = {
    state,
    io,
    stateDir,
    output: () => new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'),
  };
  registerList(sub);
  registerShow(sub);
  registerMv(sub);
  registerRm(sub);
}

/** What each `state` subcommand is registered with: its parent, the I/O, the state flags and `-o`. */
interface StateSubcommands {
  state: Command;
  io: CliIo;
  stateDir: (c: Command) => Command;
  output: () => Option;
}

function registerList({ state, io, stateDir, output }: StateSubcommands): void {
  stateDir(
    state
      .command('list')
      .description('one line per owned object (key, live id, kind, file, superseded), then pending creates')
      .addOption(output()),
  ).action(async (opts: OutputOptions) => {
    const { state: st } = openCommandState(opts, io);
    const listing = listState(await st.read(), st.location);
    io.stdout(opts.output === 'json' ? JSON.stringify(listing, null, 2) : formatListText(listing));
    // An empty remote state is often a mistyped prefix: name the states that do exist beside it.
    if (listing.objects.length === 0 && listing.intents.length === 0 && st.otherLocations) {
      const others = await st.otherLocations().catch(() => []);
      if (others.length > 0) io.stderr(`Hint: the container holds other states: ${others.join(', ')}; check --state-url.`);
    }
  });
}

function registerShow({ state, io, stateDir, output }: StateSubcommands): void {
  stateDir(
    state
      .command('show')
      .description('the whole state entry of KEY (spec, hash, file, revision, ids, applied state)')
      .argument('<key>', 'Kind/name')
      .addOption(output()),
  ).action(async (arg: string, opts: OutputOptions) => {
    const { state: st } = openCommandState(opts, io);
    const inv = await st.read();
    const k = parseStateKey(arg, 'KEY');
    requireKnown(inv, k, st.location);
    const entry = inv.objects[k.key];
    const intent = inv.intents[k.key];
    if (opts.output === 'json')
      io.stdout(JSON.stringify({ key: k.key, ...(entry ? { entry } : {}), ...(intent ? { intent } : {}) }, null, 2));
    else io.stdout(formatShowText(k.key, entry, intent));
  });
}

function registerMv({ state, io, stateDir }: StateSubcommands): void {
  stateDir(
    state
      .command('mv')
      .description('rename a state entry (same kind; NEW must not exist), e.g. before renaming metadata.name; no API call')
      .argument('<old>', 'Kind/name')
      .argument('<new>', 'Kind/new-name'),
  ).action(async (oldArg: string, newArg: string, opts: StateOptions) => {
    const from = parseStateKey(oldArg, 'OLD');
    const to = parseStateKey(newArg, 'NEW');
    checkManifestName(from, 'OLD');
    checkManifestName(to, 'NEW');
    const r = await editLocked(
      opts,
      io,
      (inv, where) => requireKnown(inv, from, where),
      (inv) => moveEntry(inv, from, to, new Date().toISOString()),
    );
    io.stdout(`Moved ${from.key} to ${to.key}.`);
    const extra = r.moved.slice(1).map(([a, b]) => `${a} → ${b}`);
    if (extra.length > 0) io.stdout(`  with its superseded entries: ${extra.join(', ')}`);
    if (r.intent) io.stdout(`  with its pending create (${to.key} is resolved by the next plan or apply)`);
    if (r.references.length > 0) io.stdout(`  references to ${from.name} now name ${to.name} in: ${r.references.join(', ')}`);
    if (r.unchangedReferences.length > 0) {
      io.stderr(
        `Warning: ${r.unchangedReferences.join(', ')} still name ${from.name} (their recorded spec was not written by this version of packsync); the next plan shows them changed.`,
      );
    }
    const elsewhere = from.kind === 'Flow' || from.kind === 'Package' ? ' and where other manifests name it' : '';
    io.stdout(
      `Next: rename metadata.name to ${to.name} in the manifest${elsewhere}; until then the plan sees ${to.key} as no longer in git.`,
    );
  });
}

function registerRm({ state, io, stateDir }: StateSubcommands): void {
  stateDir(
    state
      .command('rm')
      .description('forget state entries: packsync stops owning them; the live objects are never deleted')
      .argument('<key...>', 'Kind/name'),
  ).action(async (args: string[], opts: StateOptions) => {
    const keys = dedupe(args.map((a) => parseStateKey(a, 'KEY')));
    const { forgotten, left } = await editLocked(
      opts,
      io,
      // Every key is checked before anything is forgotten: a typo in the third key forgets nothing.
      (inv, where) => keys.forEach((k) => requireKnown(inv, k, where)),
      (inv) => ({
        forgotten: forgetEntries(inv, keys),
        left: keys.filter((k) => !k.superseded).flatMap((k) => supersededKeys(inv, k.key).map(([key]) => key)),
      }),
    );
    for (const f of forgotten)
      io.stdout(`Forgot ${f.key}${f.entry ? ` (live id ${f.entry.id}${from(f.entry)})` : ''}${f.intent ? ' and its pending create' : ''}.`);
    io.stdout(
      'No API call was made: the live objects are untouched and no longer owned by packsync. A manifest that still describes one makes the next plan report a conflict (`apply --adopt` takes it back); prune never deletes them.',
    );
    if (left.length > 0)
      io.stdout(
        `Still in the state (superseded, --prune deletes them): ${left.join(', ')}; forget them too with \`packsync state rm ${left.join(' ')}\`.`,
      );
  });
}

/**
 * An edit of the state under its lock (one writer per state, docs/reconcile.md): a running apply or agent
 * makes `mv` and `rm` exit 1 naming the holder instead of interleaving writes with them. `check`
 * runs before the lock is taken (a refused edit creates and writes nothing) and again on the state
 * read under the lock, which is the one edited.
 */
async function editLocked<T>(
  opts: StateOptions,
  io: CliIo,
  check: (inv: Inventory, where: string) => void,
  edit: (inv: Inventory) => T,
): Promise<T> {
  const { state } = openCommandState(opts, io);
  check(await state.read(), state.location);
  await state.lock();
  try {
    const store = await state.openStore();
    try {
      check(store.inventory, state.location);
      const result = edit(store.inventory);
      await store.rewrite();
      return result;
    } finally {
      // Releases the journal's file handle (it leaked before: "closing file descriptor on GC").
      await store.close();
    }
  } finally {
    await state.close();
  }
}

function from(e: InventoryEntry): string {
  return e.file === undefined ? '' : `, from ${e.file}`;
}

function dedupe(keys: StateKey[]): StateKey[] {
  const seen = new Set<string>();
  return keys.filter((k) => !seen.has(k.key) && seen.add(k.key));
}
