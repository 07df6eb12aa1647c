/**
 * The yaml package, loaded the first time a file is parsed: a load whose files all come from the
 * parse cache parses none, and importing the package was ~40 ms of every `plan` and `apply`
 * before their first call (docs/performance.md, cli-startup). Its CommonJS build is required
 * synchronously (the parser is called synchronously); the types come from the package as usual.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { Alias, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';

let lib: typeof Yaml | undefined;

export function yamlLib(): typeof Yaml {
  return (lib ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}

export const isAlias = (n: unknown): n is Alias => yamlLib().isAlias(n);
export const isMap = (n: unknown): n is YAMLMap => yamlLib().isMap(n);
export const isPair = (n: unknown): n is Pair => yamlLib().isPair(n);
export const isScalar = (n: unknown): n is Scalar => yamlLib().isScalar(n);
export const isSeq = (n: unknown): n is YAMLSeq => yamlLib().isSeq(n);
