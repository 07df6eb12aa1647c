// The river's own lint rules (docs/architecture.md, "Layers"): what `no-restricted-imports` cannot see.
// - `river/dynamic-imports`: `import('…')` and `require('…')` obey the same layer patterns as static
//   imports, and a computed specifier (which no lint can follow) is refused in src/.
// - `river/function-budget`: at most 80 lines of code and 5 parameters a function (an options object
//   beyond that), with the functions that were over budget when it came listed in eslint/function-budget.js.
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

/** The name a person would look for: the function's own, its variable's, its method's, or `outer>anonymous`. */
function functionName(node) {
  if (node.id?.name) return node.id.name;
  const p = node.parent;
  if (p?.type === 'VariableDeclarator' && p.id.type === 'Identifier') return p.id.name;
  if ((p?.type === 'MethodDefinition' || p?.type === 'Property' || p?.type === 'PropertyDefinition') && p.key) {
    return p.key.name ?? p.key.value ?? 'method';
  }
  for (let a = p; a; a = a.parent) {
    if (a.type === 'FunctionDeclaration' || a.type === 'FunctionExpression' || a.type === 'ArrowFunctionExpression')
      return `${functionName(a)}>anonymous`;
  }
  return 'anonymous';
}

/** Lines of code in a node: blank lines and lines that hold only a comment do not count (as max-lines-per-function with skipBlankLines and skipComments). */
function codeLines(sourceCode, node) {
  const commentOnly = new Set();
  for (const c of sourceCode.getCommentsInside(node)) {
    for (let l = c.loc.start.line; l <= c.loc.end.line; l++) {
      const text = sourceCode.lines[l - 1];
      const before = l === c.loc.start.line ? text.slice(0, c.loc.start.column) : '';
      const after = l === c.loc.end.line ? text.slice(c.loc.end.column) : '';
      if (before.trim() === '' && after.trim() === '') commentOnly.add(l);
    }
  }
  let n = 0;
  for (let l = node.loc.start.line; l <= node.loc.end.line; l++) if (sourceCode.lines[l - 1].trim() !== '' && !commentOnly.has(l)) n++;
  return n;
}

const functionBudget = {
  meta: {
    type: 'suggestion',
    schema: [
      {
        type: 'object',
        properties: { maxLines: { type: 'integer' }, maxParams: { type: 'integer' }, debt: { type: 'object' } },
        additionalProperties: false,
      },
    ],
    messages: {
      lines:
        'Function \'{{name}}\' has {{count}} lines of code; the budget is {{max}} (docs/architecture.md, "Function budget"): split it by concern.',
      params: "Function '{{name}}' has {{count}} parameters; the budget is {{max}}: pass an options object.",
      paid: "'{{name}}' is within the function budget now: remove it from the debt list in eslint/function-budget.js.",
    },
  },
  create(context) {
    const { maxLines = 80, maxParams = 5, debt = {} } = context.options[0] ?? {};
    const rel = context.filename.slice(context.cwd.length + 1);
    const owed = new Set(debt[rel] ?? []);
    const stillOver = new Set();
    const check = (node) => {
      const name = functionName(node);
      const lines = codeLines(context.sourceCode, node);
      const over = [];
      if (lines > maxLines) over.push({ messageId: 'lines', data: { name, count: lines, max: maxLines } });
      if (node.params.length > maxParams) over.push({ messageId: 'params', data: { name, count: node.params.length, max: maxParams } });
      if (over.length === 0) return;
      if (owed.has(name)) return stillOver.add(name);
      for (const o of over) context.report({ node, ...o, loc: node.loc.start });
    };
    return {
      FunctionDeclaration: check,
      FunctionExpression: check,
      ArrowFunctionExpression: check,
      'Program:exit'(program) {
        for (const name of owed)
          if (!stillOver.has(name)) context.report({ node: program, loc: { line: 1, column: 0 }, messageId: 'paid', data: { name } });
      },
    };
  },
};

riverPlugin.rules['function-budget'] = functionBudget;
