// The river's own lint rules (docs/architecture.md, "Layers"): what `no-restricted-imports` cannot see.
// - `river/dynamic-imports`: `import('…')` and `require('…')` obey the same layer patterns as static
//   imports, and a computed specifier (which no lint can follow) is refused in src/.
// - `river/no-cycles`: no import cycle between files of src/, type-only imports included (a type-only
//   back edge still ties two modules together for every reader and refactoring).
// Written here rather than taken from eslint-plugin-import(-x): that needs a TypeScript resolver
// package and resolves every import of every file per lint run; our specifiers are all relative
// `.js` names of `.ts` files, which TypeScript's own `preProcessFile` lists in microseconds.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';

function specifierOf(node) {
  const arg = node.type === 'ImportExpression' ? node.source : node.arguments[0];
  if (!arg) return { computed: true };
  if (arg.type === 'Literal' && typeof arg.value === 'string') return { value: arg.value };
  if (arg.type === 'TemplateLiteral' && arg.expressions.length === 0) return { value: arg.quasis[0].value.cooked };
  return { computed: true };
}

const dynamicImports = {
  meta: {
    type: 'problem',
    schema: [{ type: 'object', properties: { patterns: { type: 'array' } }, additionalProperties: false }],
    messages: {
      forbidden: '{{message}}',
      computed: 'A dynamic import with a computed path cannot be checked against the layer order; import a literal path.',
    },
  },
  create(context) {
    const patterns = (context.options[0]?.patterns ?? []).map((p) => ({ re: new RegExp(p.regex), message: p.message }));
    const check = (node) => {
      const spec = specifierOf(node);
      if (spec.computed) return context.report({ node, messageId: 'computed' });
      const hit = patterns.find((p) => p.re.test(spec.value));
      if (hit) context.report({ node, messageId: 'forbidden', data: { message: `'${spec.value}' ${hit.message}` } });
    };
    return {
      ImportExpression: check,
      'CallExpression[callee.type="Identifier"][callee.name="require"]': check,
      'CallExpression[callee.object.name="require"][callee.property.name="resolve"]': check,
    };
  },
};

/** The relative imports of one file as absolute .ts paths, cached by modification time. */
const edgeCache = new Map();
function edgesOf(file) {
  let mtime;
  try {
    mtime = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const hit = edgeCache.get(file);
  if (hit && hit.mtime === mtime) return hit.edges;
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const edges = info.importedFiles
    .map((i) => i.fileName)
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
  edgeCache.set(file, { mtime, edges });
  return edges;
}

/** A path of imports from `start` back to `start`, or undefined. Depth-first over files on disk. */
function cycleFrom(start, firstEdges) {
  const seen = new Set();
  const stack = firstEdges.map((e) => [e, [start, e]]);
  while (stack.length > 0) {
    const [file, path] = stack.pop();
    if (file === start) return path;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const next of edgesOf(file)) stack.push([next, [...path, next]]);
  }
  return undefined;
}

const noCycles = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { cycle: 'Import cycle: {{path}}. Move the shared part (often a type) into a module both can import.' },
  },
  create(context) {
    const file = resolve(context.filename);
    const root = context.cwd;
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string' || !node.source.value.startsWith('.')) return;
      const target = resolve(dirname(file), node.source.value.replace(/\.js$/, '.ts'));
      const path = cycleFrom(file, [target]);
      if (path) context.report({ node, messageId: 'cycle', data: { path: path.map((p) => p.slice(root.length + 1)).join(' → ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export const riverPlugin = { rules: { 'dynamic-imports': dynamicImports, 'no-cycles': noCycles } };
